--[[
  The reservations expired by the server's clock, oldest first.

  KEYS[1] reservations-by-expiry zset

  ARGV[1] batch size

  Reply: the expired reservation ids (at most ARGV[1])
]]
local t = redis.call('TIME')
local now = string.format('%d', tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000))
return redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[1]))
