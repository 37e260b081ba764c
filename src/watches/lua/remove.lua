--[[
  Removes a watch and its id.

  KEYS[1] the account's watch ids
  KEYS[2] the watch

  ARGV[1] id

  Reply: 1 removed | 0 no such id
]]
redis.call('DEL', KEYS[2])
return redis.call('SREM', KEYS[1], ARGV[1])
