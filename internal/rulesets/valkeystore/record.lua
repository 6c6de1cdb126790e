-- record(key, history, change, max): pushes a change on a ruleset's history
-- with its version (one more than the newest's) and the state of the
-- ruleset after it (its hash; none once deleted), and keeps the newest max.
-- change is JSON without them; they are appended to it.
local function record(key, history, change, max)
  local version = 1
  local head = redis.call('LINDEX', history, 0)
  if head then
    local ok, prev = pcall(cjson.decode, head)
    if ok and type(prev) == 'table' and type(prev.version) == 'number' then version = prev.version + 1 end
  end
  local flat = redis.call('HGETALL', key)
  local entry = string.sub(change, 1, -2) .. ',"version":' .. string.format('%d', version)
  if #flat > 0 then
    local state = {}
    for i = 1, #flat, 2 do state[flat[i]] = flat[i + 1] end
    entry = entry .. ',"state":' .. cjson.encode(state)
  end
  redis.call('LPUSH', history, entry .. '}')
  redis.call('LTRIM', history, 0, tonumber(max) - 1)
end
