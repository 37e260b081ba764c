--[[
  Opens one of the account's event streams unless it has its bound: a sorted set of stream ids scored by
  when their lease ends (Redis' clock), so a crashed instance's streams stop counting when theirs lapse.

  KEYS[1] the account's open streams (zset)

  ARGV[1] stream id
  ARGV[2] max
  ARGV[3] lease ms

  Reply: 1 opened | 0 the bound is met
]]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
