local cur = redis.call('GET', KEYS[1])
if cur == false then cur = '' end
if cur ~= ARGV[1] then return 0 end
local MIN = 60000
if ARGV[2] == '' then
  redis.call('DEL', KEYS[1])
elseif ARGV[3] == '' then
  redis.call('SET', KEYS[1], ARGV[2])
elseif tonumber(ARGV[3]) < 1 then
  redis.call('DEL', KEYS[1])
elseif tonumber(ARGV[3]) < MIN then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', MIN)
else
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
end
return 1
