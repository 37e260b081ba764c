--[[
  Adds a job to its account's index, scored by Redis' clock at the insert; ids older than a job lives are
  dropped (their jobs are gone).

  KEYS[1] the account's job index

  ARGV[1] job id
  ARGV[2] ttl ms

  Reply: 1
]]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[2])
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. (now - ttl))
redis.call('PEXPIRE', KEYS[1], ttl)
return 1
