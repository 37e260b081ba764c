--[[
  Adds a watch within the account's cap: the count, then the add, on one slot.

  KEYS[1] the account's watch ids
  KEYS[2] the watch

  ARGV[1] cap
  ARGV[2] id
  ARGV[3] json

  Reply: 1 added | 0 the account is at its cap
]]
if redis.call('SCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('SADD', KEYS[1], ARGV[2])
redis.call('HSET', KEYS[2], 'json', ARGV[3], 'v', '0')
return 1
