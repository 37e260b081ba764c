--[[
  Drops the claim of an idempotency key only if the token still holds it; its start (since) then stays
  ARGV[2] ms, as the released run's mark.

  KEYS[1] the key's hash

  ARGV[1] token
  ARGV[2] ms to keep the run's start ('0' = none)

  Reply: 1 released | 0 not held under this token
]]
if redis.call('HGET', KEYS[1], 'token') ~= ARGV[1] then return 0 end
if ARGV[2] ~= '0' and redis.call('HEXISTS', KEYS[1], 'since') == 1 then
  redis.call('HDEL', KEYS[1], 'token')
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return redis.call('DEL', KEYS[1])
