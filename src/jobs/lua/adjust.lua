--[[
  Rewrites a settled chunk's lines and adds billed keys and counter deltas, applied only if lines and
  billed keys are still what was read; counts one adjust of the chunk in the same step, whether or not
  anything changed (a settle of a run that read the chunk before it is refused).

  KEYS[1] job
  KEYS[2] chunk
  KEYS[3] results

  ARGV[1] text read
  ARGV[2] billed read
  ARGV[3] new text
  ARGV[4] billed added ('' = nothing moved: only the adjust is counted)
  ARGV[5] succeeded (delta)
  ARGV[6] failed (delta)
  ARGV[7] cache_hits (delta)
  ARGV[8] credits (delta)

  Reply: 1 applied (nothing moved: the adjust counted) | 0 not (lines or billed keys changed since read:
  nothing written, not counted) | -1 the job is gone (nothing to adjust)
]]
--!include job-ttl.lua
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
local done = redis.call('HGET', KEYS[2], 'done') == '1'
local text
if done then text = redis.call('GET', KEYS[3]) else text = redis.call('HGET', KEYS[2], 'partial') end
if (text or '') ~= ARGV[1] or (redis.call('HGET', KEYS[2], 'billed') or '') ~= ARGV[2] then return 0 end
redis.call('HINCRBY', KEYS[2], 'adjusts', 1)
expireWithJob(KEYS[2])
if ARGV[4] == '' then return 1 end
if done then redis.call('SET', KEYS[3], ARGV[3], 'KEEPTTL') else redis.call('HSET', KEYS[2], 'partial', ARGV[3]) end
redis.call('HSET', KEYS[2], 'billed', ARGV[2] ~= '' and (ARGV[2] .. ' ' .. ARGV[4]) or ARGV[4])
local names = {'succeeded', 'failed', 'cache_hits', 'credits'}
for i, name in ipairs(names) do redis.call('HINCRBY', KEYS[1], name, ARGV[4 + i]) end
return 1
