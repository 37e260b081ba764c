--[[
  Records one delivery attempt in the account's log, trimmed to the last ARGV[3] ms (by the entry ids,
  which are the server's time) and to ARGV[4] entries, and keeps the attempt's event beside it (for a
  redelivery) as long; the log itself expires ARGV[3] ms after its last attempt.

  KEYS[1] the account's attempt log (a stream)
  KEYS[2] the event (the webhook-id's key)

  ARGV[1] the attempt, JSON
  ARGV[2] the event, JSON
  ARGV[3] keep, ms
  ARGV[4] most entries

  Reply: the attempt's stream id
]]
local id = redis.call('XADD', KEYS[1], 'MAXLEN', ARGV[4], '*', 'r', ARGV[1])
local ms = tonumber(string.match(id, '^(%d+)-'))
redis.call('XTRIM', KEYS[1], 'MINID', string.format('%.0f', ms - tonumber(ARGV[3])))
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3])
return id
