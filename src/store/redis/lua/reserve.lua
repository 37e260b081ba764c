--[[
  Reserves one lookup of an account: the reserve decision. The kind is only what the lookup is held as:
  the kind charged is decided at commit. The spend limit is checked against the worst case (every lookup
  in flight plus this one is charged, and all past the remaining included ones are overage), so it can
  never be exceeded whatever the order of commits; the price is a transient spend_limit_reached (or
  credits_exhausted) while included lookups are in flight that might still fail and be released.
  A reservation already held (a job chunk's re-run adopting its dead run's) gets a whole lease from now.

  KEYS[1] reservation record
  KEYS[2] usage bucket
  KEYS[3] daily budget counter
  KEYS[4] reservations-by-expiry zset

  ARGV[1] reservationId
  ARGV[2] accountId
  ARGV[3] period
  ARGV[4] included
  ARGV[5] overage allowed (1|0)
  ARGV[6] overage rate (micro-USD)
  ARGV[7] spend limit (micro-USD, -1 = none)
  ARGV[8] day
  ARGV[9] scope
  ARGV[10] daily cap (-1 = none)
  ARGV[11] ttl ms
  ARGV[12] budget key ttl ms

  Reply: {1, kind} | {0, reason[, overageUsed]}
]]
local t = redis.call('TIME')
local expiresAt = string.format('%d', tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + tonumber(ARGV[11]))
local held = redis.call('HGET', KEYS[1], 'kind')
if held then
  -- Held again (a job chunk's re-run adopting its dead run's): a whole lease from now, as a new one gets.
  redis.call('HSET', KEYS[1], 'expires_at', expiresAt)
  redis.call('ZADD', KEYS[4], expiresAt, ARGV[1])
  return {1, held}
end
local b = redis.call('HMGET', KEYS[2], 'used', 'reserved', 'overage_used')
local used = tonumber(b[1]) or 0
local reserved = tonumber(b[2]) or 0
local overageUsed = tonumber(b[3]) or 0
local remaining = tonumber(ARGV[4]) - (used - overageUsed)
if remaining < 0 then remaining = 0 end
local kind
if reserved < remaining then
  kind = 'included'
elseif ARGV[5] == '1' then
  local rate = tonumber(ARGV[6])
  local limit = tonumber(ARGV[7])
  if limit >= 0 and (overageUsed + reserved + 1 - remaining) * rate > limit then
    return {0, 'spend_limit_reached', overageUsed, reserved - remaining, reserved}
  end
  kind = 'overage'
else
  return {0, 'credits_exhausted', reserved}
end
local cap = tonumber(ARGV[10])
local spent = tonumber(redis.call('GET', KEYS[3])) or 0
if cap >= 0 and spent >= cap then return {0, 'live_lookups_capped'} end
redis.call('INCR', KEYS[3])
redis.call('PEXPIRE', KEYS[3], ARGV[12])
redis.call('HINCRBY', KEYS[2], 'reserved', 1)
if kind == 'overage' then redis.call('HINCRBY', KEYS[2], 'overage_reserved', 1) end
redis.call('HSET', KEYS[1], 'account', ARGV[2], 'period', ARGV[3], 'kind', kind, 'included', ARGV[4],
  'day', ARGV[8], 'scope', ARGV[9], 'bucket', KEYS[2], 'budget', KEYS[3], 'expires_at', expiresAt)
redis.call('ZADD', KEYS[4], expiresAt, ARGV[1])
return {1, kind}
