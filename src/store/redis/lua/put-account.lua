--[[
  Stores an account, its key index entry and its id, dropping the stored account's old key index entry,
  and announces the change.

  KEYS[1] account
  KEYS[2] key index entry of the account's (new) key hash
  KEYS[3] id set
  KEYS[4] key index entry of the stored account's key hash (= KEYS[2] when there is none)

  ARGV[1] account JSON
  ARGV[2] account id
  ARGV[3] the stored account JSON the caller read ('' = none)
  ARGV[4] the account-change channel (every instance's watchAccounts hears the write)

  Reply: 1 | -1 the stored account changed since the caller read it (read again)
]]
local prev = redis.call('GET', KEYS[1]) or ''
if prev ~= ARGV[3] then return -1 end
if KEYS[4] ~= KEYS[2] and redis.call('GET', KEYS[4]) == ARGV[2] then redis.call('DEL', KEYS[4]) end
redis.call('SET', KEYS[1], ARGV[1])
redis.call('SET', KEYS[2], ARGV[2])
redis.call('SADD', KEYS[3], ARGV[2])
redis.call('PUBLISH', ARGV[4], ARGV[2])
return 1
