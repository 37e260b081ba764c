--[[
  The sweep's release: release.lua, but only while the reservation's expiry (server clock) is still past.
  Listing the expired ids and releasing them are separate calls, and a holder may renew in between: that
  renewal must win, or its lookup would go on with its credit given back.

  KEYS, ARGV: as release.lua (KEYS[1] reservation record, KEYS[2] reservations-by-expiry zset,
  KEYS[3] the record's usage bucket, KEYS[4] its budget counter; ARGV[1] reservationId)

  Reply: as release.lua (0 also when renewed since it was listed)
]]
local score = redis.call('ZSCORE', KEYS[2], ARGV[1])
if score then
  local t = redis.call('TIME')
  if tonumber(score) > tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) then return 0 end
end
--!include release.lua
