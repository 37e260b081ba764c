--[[
  Releases a job from its account's bounds, once (HDEL says whether it was still counted).

  KEYS[1] the account's counted jobs (hash)
  KEYS[2] their items together (counter)

  ARGV[1] job id

  Reply: 1 released | 0 not counted
]]
local n = redis.call('HGET', KEYS[1], ARGV[1])
if not n then return 0 end
redis.call('HDEL', KEYS[1], ARGV[1])
if redis.call('DECRBY', KEYS[2], n) <= 0 or redis.call('HLEN', KEYS[1]) == 0 then redis.call('DEL', KEYS[2]) end
return 1
