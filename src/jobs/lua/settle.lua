--[[
  Settles a round of a chunk's run: its results (final, or partial lines when a round ends early) and the
  job's counters, once (a round already settled, or a chunk done, is left alone), and only if the chunk has
  had no adjust since the run read it (a refused run's adjust may have recorded a charge the run did not read,
  or moved one onto settled lines: the run reads them again and recomputes what it reports).

  KEYS[1] job
  KEYS[2] chunk
  KEYS[3] results

  ARGV[1] round
  ARGV[2] final (1|0)
  ARGV[3] text
  ARGV[4] done
  ARGV[5] succeeded
  ARGV[6] failed
  ARGV[7] cache_hits
  ARGV[8] credits
  ARGV[9] held
  ARGV[10] waiting_until ('' = none)
  ARGV[11] billed (space-separated)
  ARGV[12] now ISO
  ARGV[13] adjusts seen (how many the chunk had had when the run read it)

  Reply: 1 settled | the job's account id: settled, and this write completed the job (the account's
  bounds release it) | 0 not (the job gone, the chunk done, another round) | -1 not: the chunk had an
  adjust since the run read it
]]
--!include job-ttl.lua
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if redis.call('HGET', KEYS[2], 'done') == '1' then return 0 end
if tonumber(redis.call('HGET', KEYS[2], 'round') or '0') ~= tonumber(ARGV[1]) then return 0 end
if tonumber(redis.call('HGET', KEYS[2], 'adjusts') or '0') > tonumber(ARGV[13]) then return -1 end
-- This round's run ends here (running counts chunks with a round begun and not settled).
local completed = false
local running = redis.call('HINCRBY', KEYS[1], 'running', -1)
local names = {'done', 'succeeded', 'failed', 'cache_hits', 'credits'}
for i, name in ipairs(names) do redis.call('HINCRBY', KEYS[1], name, ARGV[3 + i]) end
local held = tonumber(ARGV[9])
local waiting = redis.call('HINCRBY', KEYS[1], 'waiting', held - tonumber(redis.call('HGET', KEYS[2], 'held') or '0'))
redis.call('HSET', KEYS[2], 'held', held)
if ARGV[11] ~= '' then
  local b = redis.call('HGET', KEYS[2], 'billed')
  redis.call('HSET', KEYS[2], 'billed', b and (b .. ' ' .. ARGV[11]) or ARGV[11])
end
if ARGV[2] == '1' then
  redis.call('SET', KEYS[3], ARGV[3])
  expireWithJob(KEYS[3])
  redis.call('HSET', KEYS[2], 'done', '1')
  redis.call('HDEL', KEYS[2], 'partial')
  local n = redis.call('HINCRBY', KEYS[1], 'chunks_done', 1)
  local status = redis.call('HGET', KEYS[1], 'status')
  if n == tonumber(redis.call('HGET', KEYS[1], 'chunks')) and (status == 'queued' or status == 'running') then
    redis.call('HSET', KEYS[1], 'status', 'completed', 'finished_at', ARGV[12])
    completed = true
  end
else
  redis.call('HSET', KEYS[2], 'partial', (redis.call('HGET', KEYS[2], 'partial') or '') .. ARGV[3])
  redis.call('HINCRBY', KEYS[2], 'round', 1)
  redis.call('HDEL', KEYS[2], 'round_start')
end
if ARGV[10] ~= '' then redis.call('HSET', KEYS[1], 'waiting_until', ARGV[10]) end
if waiting == 0 then redis.call('HSET', KEYS[1], 'waiting_until', '') end
if running <= 0 and redis.call('HGET', KEYS[1], 'status') == 'cancelled' and (redis.call('HGET', KEYS[1], 'finished_at') or '') == '' then
  redis.call('HSET', KEYS[1], 'finished_at', ARGV[12])
end
expireWithJob(KEYS[2])
-- The write that completed the job (once: the status changes once) names its account, to be released.
if completed then return redis.call('HGET', KEYS[1], 'accountId') or 1 end
return 1
