--[[
  Starts a run of a job's chunk, or tells why not (the job gone, the chunk settled or not to run).

  KEYS[1] job
  KEYS[2] chunk

  ARGV[1] now ms
  ARGV[2] now ISO

  Reply: {'gone'} | {'skip', status, done (1|0), round, billed, begun (1|0: a round start set)} | {'run', round, round start, rerun (1|0), partial lines, billed,
         status, adjusts (how many the chunk has had)}
]]
--!include job-ttl.lua
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return {'gone'} end
local done = redis.call('HGET', KEYS[2], 'done')
local rs = redis.call('HGET', KEYS[2], 'round_start')
-- A cancelled job's chunk that was running (its run died) is run again to settle what it began.
if done == '1' or status == 'completed' or status == 'failed' or (status == 'cancelled' and not rs) then
  return {'skip', status, done == '1' and '1' or '0', redis.call('HGET', KEYS[2], 'round') or '0',
          redis.call('HGET', KEYS[2], 'billed') or '', rs and '1' or '0'}
end
if status == 'queued' then redis.call('HSET', KEYS[1], 'status', 'running', 'started_at', ARGV[2]) end
local rerun = '1'
if not rs then
  rs = ARGV[1]
  rerun = '0'
  redis.call('HINCRBY', KEYS[1], 'running', 1)
  redis.call('HSET', KEYS[2], 'round_start', rs)
  expireWithJob(KEYS[2])
end
return {'run', redis.call('HGET', KEYS[2], 'round') or '0', rs, rerun, redis.call('HGET', KEYS[2], 'partial') or '', redis.call('HGET', KEYS[2], 'billed') or '', status, redis.call('HGET', KEYS[2], 'adjusts') or '0'}
