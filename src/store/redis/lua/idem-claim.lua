--[[
  Claims an idempotency key, or tells what holds it. A key with neither token nor answer is a released
  run's mark (its start, since): claimed, and its since told when the request is the same.

  KEYS[1] the key's hash

  ARGV[1] token
  ARGV[2] body hash
  ARGV[3] lease ms
  ARGV[4] a damaged answer to drop first ('' = none)
  ARGV[5] this run's start ('' = unknown)

  Reply: {'claimed', earlier run's start or ''} | {'running', body_hash} | {'done', body_hash, packed answer}
]]
if ARGV[4] ~= '' and redis.call('HGET', KEYS[1], 'answer') == ARGV[4] then redis.call('DEL', KEYS[1]) end
local h = redis.call('HMGET', KEYS[1], 'body_hash', 'answer', 'token', 'since')
if h[2] then return {'done', h[1], h[2]} end
if h[3] then return {'running', h[1]} end
local earlier = ''
if h[1] == ARGV[2] and h[4] then earlier = h[4] end
local since = earlier ~= '' and earlier or ARGV[5]
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'body_hash', ARGV[2], 'token', ARGV[1])
if since ~= '' then redis.call('HSET', KEYS[1], 'since', since) end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return {'claimed', earlier}
