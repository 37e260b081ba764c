--[[
  Holds one of the account's live slots, if fewer than max are held (lapsed ones dropped first).

  KEYS[1] the account's live slots (sorted set: slot id -> expiry)

  ARGV[1] slot id
  ARGV[2] max
  ARGV[3] ttl ms

  Reply: 1 held | 0 all taken
]]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]))
return 1
