--[[
  Included (--!include job-ttl.lua) by the scripts that write a key of a job after its creation:
  expireWithJob(key) gives the key the job key's remaining lifetime (Redis' clock).

  KEYS[1] the job (the including script's)

  ARGV: none of its own

  Reply: none (defines the local function expireWithJob)
]]
local function expireWithJob(key)
  local left = redis.call('PTTL', KEYS[1])
  if left > 0 then redis.call('PEXPIRE', key, left) end
end
