--[[
  Renews the slots this process still holds. A slot that lapsed meanwhile (a stall past the ttl) is added
  back: its lookup still runs, so it counts.

  KEYS[1] the account's live slots

  ARGV[1] ttl ms
  ARGV[2..] the slot ids this process still holds

  Reply: 1
]]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[1])
for i = 2, #ARGV do redis.call('ZADD', KEYS[1], now + ttl, ARGV[i]) end
redis.call('PEXPIRE', KEYS[1], ttl)
return 1
