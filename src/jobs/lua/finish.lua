--[[
  Ends a job that is queued or running (status, finished_at). A job cancelled while chunks run gets
  finished_at when the last settles (settle.lua), or here when its failure is recorded.

  KEYS[1] job

  ARGV[1] status
  ARGV[2] now ISO

  Reply: {changed (1|0), the job's account id when this made it final for the account's bounds (a
  cancelled job at once), else ''}
]]
local status = redis.call('HGET', KEYS[1], 'status')
if status == 'cancelled' and ARGV[1] == 'failed' and (redis.call('HGET', KEYS[1], 'finished_at') or '') == '' then
  redis.call('HSET', KEYS[1], 'finished_at', ARGV[2])
  return {1, ''}
end
if status ~= 'queued' and status ~= 'running' then return {0, ''} end
local running = tonumber(redis.call('HGET', KEYS[1], 'running') or '0')
redis.call('HSET', KEYS[1], 'status', ARGV[1], 'finished_at', (ARGV[1] == 'cancelled' and running > 0) and '' or ARGV[2])
-- Final for the account's bounds (a cancelled job at once): its account, to be released.
return {1, redis.call('HGET', KEYS[1], 'accountId') or ''}
