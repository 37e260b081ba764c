--[[
  Deletes the lock only if the token still owns it.

  KEYS[1] lock

  ARGV[1] token

  Reply: 1 deleted | 0 not held under this token
]]
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
