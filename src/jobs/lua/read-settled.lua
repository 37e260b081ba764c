--[[
  A settled chunk's lines (the results when done, else the partial lines), billed keys and how many adjusts it
  has had.

  KEYS[1] job
  KEYS[2] chunk
  KEYS[3] results

  ARGV: none

  Reply: {text or '', billed or '', adjusts}
]]
local text
if redis.call('HGET', KEYS[2], 'done') == '1' then text = redis.call('GET', KEYS[3]) else text = redis.call('HGET', KEYS[2], 'partial') end
return {text or '', redis.call('HGET', KEYS[2], 'billed') or '', redis.call('HGET', KEYS[2], 'adjusts') or '0'}
