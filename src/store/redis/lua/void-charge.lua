--[[
  Takes back a charge: the ledger entry its request's charges name (checked to be the reservation's), its
  copy in the account's own record, its counters and its day's credit.

  KEYS[1] ledger stream
  KEYS[2] the reservation's usage bucket
  KEYS[3] its daily budget counter
  KEYS[4] its request's charges
  KEYS[5] the account's charges (stream)
  KEYS[6] the account's day of the charge (hash)

  ARGV[1] reservationId

  Reply: 1 taken back | 0 no such entry
]]
local id = redis.call('HGET', KEYS[4], ARGV[1])
if not id then return 0 end
redis.call('HDEL', KEYS[4], ARGV[1])
local found = redis.call('XRANGE', KEYS[1], id, id)
if #found == 0 then return 0 end
local f = found[1][2]
local reservation, kind
for i = 1, #f, 2 do
  if f[i] == 'reservation' then reservation = f[i + 1] elseif f[i] == 'kind' then kind = f[i + 1] end
end
if reservation ~= ARGV[1] then return 0 end
redis.call('XDEL', KEYS[1], id)
redis.call('XDEL', KEYS[5], id)
local credits = tonumber(redis.call('HGET', KEYS[6], 'credits'))
if credits and credits > 0 then redis.call('HINCRBY', KEYS[6], 'credits', -1) end
redis.call('HINCRBY', KEYS[2], 'used', -1)
if kind == 'overage' then redis.call('HINCRBY', KEYS[2], 'overage_used', -1) end
local spent = tonumber(redis.call('GET', KEYS[3]))
if spent and spent > 0 then redis.call('DECR', KEYS[3]) end
return 1
