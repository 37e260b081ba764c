--[[
  Moves a held reservation's expiry (server clock) to ttl from now.

  KEYS[1] reservation record
  KEYS[2] reservations-by-expiry zset

  ARGV[1] reservationId
  ARGV[2] ttl ms

  Reply: 1 renewed | 0 not held
]]
if not redis.call('HGET', KEYS[1], 'kind') then return 0 end
local t = redis.call('TIME')
local expiresAt = string.format('%d', tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + tonumber(ARGV[2]))
redis.call('HSET', KEYS[1], 'expires_at', expiresAt)
redis.call('ZADD', KEYS[2], expiresAt, ARGV[1])
return 1
