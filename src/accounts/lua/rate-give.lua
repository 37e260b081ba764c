--[[
  Gives cost units back, only to the window still current.

  KEYS[1] the account's window

  ARGV[1] cost
  ARGV[2] window ms

  Reply: 1 given back | 0 another window
]]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local w = tonumber(ARGV[2])
if tonumber(redis.call('HGET', KEYS[1], 'w') or '-1') ~= now - (now % w) then return 0 end
local used = tonumber(redis.call('HGET', KEYS[1], 'n') or '0') - tonumber(ARGV[1])
redis.call('HSET', KEYS[1], 'n', used > 0 and used or 0)
return 1
