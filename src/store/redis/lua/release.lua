--[[
  Gives a held reservation back: the bucket's hold and the budget's hold (only above 0: the counter may
  have expired with its day). A record that is gone is only dropped from the zset.

  KEYS[1] reservation record
  KEYS[2] reservations-by-expiry zset
  KEYS[3] the record's usage bucket
  KEYS[4] its budget counter
  (KEYS[3] and KEYS[4] may repeat KEYS[1] when the record was not found)

  ARGV[1] reservationId

  Reply: 1 released | 0 not held | -1 KEYS[3]/KEYS[4] are not the record's (read them again)
]]
local r = redis.call('HMGET', KEYS[1], 'kind', 'bucket', 'budget')
if not r[1] then
  redis.call('ZREM', KEYS[2], ARGV[1])
  return 0
end
if r[2] ~= KEYS[3] or r[3] ~= KEYS[4] then return -1 end
redis.call('HINCRBY', KEYS[3], 'reserved', -1)
if r[1] == 'overage' then redis.call('HINCRBY', KEYS[3], 'overage_reserved', -1) end
local spent = tonumber(redis.call('GET', KEYS[4]))
if spent and spent > 0 then redis.call('DECR', KEYS[4]) end
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
return 1
