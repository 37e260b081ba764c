--[[
  Counts a job toward its account's bounds, unless that passes one. The account's counted jobs are a hash
  (job id to its items) and their items a counter, both under the account's hash tag: a job is counted
  once (its id) and released once (account-release.lua).

  KEYS[1] the account's counted jobs (hash)
  KEYS[2] their items together (counter)

  ARGV[1] job id
  ARGV[2] items
  ARGV[3] max jobs
  ARGV[4] max items
  ARGV[5] ttl ms

  Reply: {'ok', 0} | {'jobs_active', jobs counted} | {'job_items_queued', items counted}
]]
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return {'ok', 0} end
local jobs = redis.call('HLEN', KEYS[1])
if jobs >= tonumber(ARGV[3]) then return {'jobs_active', jobs} end
local items = tonumber(redis.call('GET', KEYS[2]) or '0')
if items + tonumber(ARGV[2]) > tonumber(ARGV[4]) then return {'job_items_queued', items} end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('INCRBY', KEYS[2], ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
redis.call('PEXPIRE', KEYS[2], ARGV[5])
return {'ok', 0}
