--[[
  A settled chunk's lines (the results when done, else the partial lines) and billed keys.

  KEYS[1] job
  KEYS[2] chunk
  KEYS[3] results

  ARGV: none

  Reply: {text or '', billed or ''}
]]
local text
if redis.call('HGET', KEYS[2], 'done') == '1' then text = redis.call('GET', KEYS[3]) else text = redis.call('HGET', KEYS[2], 'partial') end
return {text or '', redis.call('HGET', KEYS[2], 'billed') or ''}
