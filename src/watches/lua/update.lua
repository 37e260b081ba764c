--[[
  Stores a watch if its version is still the one read (compare-and-store), and moves the version on.

  KEYS[1] the watch

  ARGV[1] the version read
  ARGV[2] json

  Reply: 1 stored | 0 gone or changed since read
]]
local v = redis.call('HGET', KEYS[1], 'v')
if v == false or v ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'json', ARGV[2], 'v', tostring(tonumber(v) + 1))
return 1
