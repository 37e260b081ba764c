--[[
  Stores the answer of a claimed idempotency key, if the token still holds the claim.

  KEYS[1] the key's hash

  ARGV[1] token
  ARGV[2] packed answer
  ARGV[3] ttl ms

  Reply: 1 | 0 the claim is not held under this token
]]
if redis.call('HGET', KEYS[1], 'token') ~= ARGV[1] then return 0 end
redis.call('HDEL', KEYS[1], 'token')
redis.call('HSET', KEYS[1], 'answer', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
