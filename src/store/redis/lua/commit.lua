--[[
  Charges a held reservation. The kind charged is decided here, from what is committed: included while
  the bucket's committed included lookups (used - overage_used) are fewer than its included ones, else
  overage. (A record written before this rule has no `included`: charged as held.) The charge goes to the
  ledger, to the account's own record (the same stream id) and to the credits of its UTC day.

  KEYS[1] reservation record
  KEYS[2] reservations-by-expiry zset
  KEYS[3] ledger stream
  KEYS[4] the record's usage bucket
  KEYS[5] the request's charges (hash)
  KEYS[6] the account's charges (stream)
  KEYS[7] the account's day (hash), the day of ARGV[4]

  ARGV[1] reservationId
  ARGV[2] cacheKey
  ARGV[3] requestId
  ARGV[4] at
  ARGV[5] charges ttl ms
  ARGV[6] the ledger's retention ms
  ARGV[7] source ('' when not known)
  ARGV[8] the account's day's ttl ms
  ARGV[9] the account whose keys KEYS[6] and KEYS[7] are

  Reply: 1 committed | 0 not held | -1 KEYS[4] is not the record's bucket, or KEYS[6..7] not its account's (read it again)
]]
local r = redis.call('HMGET', KEYS[1], 'account', 'kind', 'bucket', 'included')
if not r[1] then return 0 end
if r[3] ~= KEYS[4] or r[1] ~= ARGV[9] then return -1 end
local kind = r[2]
if r[4] then
  local b = redis.call('HMGET', KEYS[4], 'used', 'overage_used')
  local used = tonumber(b[1]) or 0
  local overageUsed = tonumber(b[2]) or 0
  if used - overageUsed < tonumber(r[4]) then kind = 'included' else kind = 'overage' end
end
redis.call('HINCRBY', KEYS[4], 'reserved', -1)
redis.call('HINCRBY', KEYS[4], 'used', 1)
if r[2] == 'overage' then redis.call('HINCRBY', KEYS[4], 'overage_reserved', -1) end
if kind == 'overage' then redis.call('HINCRBY', KEYS[4], 'overage_used', 1) end
-- Stream ids are Redis' ms: charges older than the retention are trimmed (about: whole nodes) as this one comes.
local t = redis.call('TIME')
local oldest = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) - tonumber(ARGV[6])
local fields = { 'reservation', ARGV[1], 'account', r[1], 'cache_key', ARGV[2], 'request', ARGV[3], 'kind', kind, 'at', ARGV[4] }
if ARGV[7] ~= '' then
  fields[#fields + 1] = 'source'
  fields[#fields + 1] = ARGV[7]
end
local charge = redis.call('XADD', KEYS[3], 'MINID', '~', oldest, '*', unpack(fields))
redis.call('XADD', KEYS[6], 'MINID', '~', oldest, charge, unpack(fields))
redis.call('HINCRBY', KEYS[7], 'credits', 1)
redis.call('PEXPIRE', KEYS[7], ARGV[8])
redis.call('HSET', KEYS[5], ARGV[1], charge)
redis.call('PEXPIRE', KEYS[5], ARGV[5])
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
return 1
