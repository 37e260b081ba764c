--[[
  Renews the leases of streams still held (a lapsed one is not added back: its stream was let go).

  KEYS[1] the account's open streams (zset)

  ARGV[1] lease ms
  ARGV[2..] stream ids

  Reply: 1
]]
local t = redis.call('TIME')
local until = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + tonumber(ARGV[1])
for i = 2, #ARGV do redis.call('ZADD', KEYS[1], 'XX', until, ARGV[i]) end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1
