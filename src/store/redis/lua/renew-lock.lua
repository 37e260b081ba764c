--[[
  Renews the lock if the token still owns it.

  KEYS[1] lock

  ARGV[1] token
  ARGV[2] ttl ms

  Reply: 1 renewed | 0 not held under this token
]]
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
