--[[
  Takes cost units of the account's fixed window (Redis' clock), all or none.

  KEYS[1] the account's window (hash: w = window start, n = used)

  ARGV[1] cost
  ARGV[2] limit
  ARGV[3] window ms

  Reply: {1 taken | 0 refused, used, ms to the window's reset}
]]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local w = tonumber(ARGV[3])
local start = now - (now % w)
local cost = tonumber(ARGV[1])
local used = 0
if tonumber(redis.call('HGET', KEYS[1], 'w') or '-1') == start then used = tonumber(redis.call('HGET', KEYS[1], 'n') or '0') end
local reset = start + w - now
if used + cost > tonumber(ARGV[2]) then return {0, used, reset} end
used = used + cost
redis.call('HSET', KEYS[1], 'w', start, 'n', used)
redis.call('PEXPIRE', KEYS[1], reset + 1000)
return {1, used, reset}
