--[[
  Renews the claim of an idempotency key if the token still holds it.

  KEYS[1] the key's hash

  ARGV[1] token
  ARGV[2] lease ms

  Reply: 1 renewed | 0 not held under this token
]]
if redis.call('HGET', KEYS[1], 'token') == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
