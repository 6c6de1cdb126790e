-- Creates or updates one ruleset hash atomically, and records the change
-- (record.lua is prepended).
-- KEYS[1]: ruleset:{name}; KEYS[2]: its history list (HistoryKey, same slot)
-- ARGV: now, has_description, description, has_markdown, markdown, has_tags, tags_json,
--       the change if created, the change if updated, the history's length,
--       then for each scope field (globs, always, targets): has_it, value
--       (an empty value removes the field, so an unscoped ruleset keeps the
--       specification's five fields)
-- Returns 1 when created, 0 when updated, 2 when an update changes
-- nothing, -1 when a create lacks the description, -2 when it lacks the
-- markdown.
local key = KEYS[1]
local now = ARGV[1]
local scope = {'globs', 'always', 'targets'}
local function set_scope()
  for i, field in ipairs(scope) do
    local has, value = ARGV[9 + 2 * i], ARGV[10 + 2 * i]
    if has == '1' then
      if value == '' then redis.call('HDEL', key, field) else redis.call('HSET', key, field, value) end
    end
  end
end
if redis.call('EXISTS', key) == 0 then
  if ARGV[2] ~= '1' then return -1 end
  if ARGV[4] ~= '1' then return -2 end
  local tags = '[]'
  if ARGV[6] == '1' then tags = ARGV[7] end
  redis.call('HSET', key, 'description', ARGV[3], 'tags', tags, 'markdown', ARGV[5],
    'created_at', now, 'last_modified', now)
  set_scope()
  record(key, KEYS[2], ARGV[8], ARGV[10])
  return 1
end
-- An update records the fields whose value it changes, and one that
-- changes none writes nothing (last_modified stays, no version is made).
local given = {}
if ARGV[2] == '1' then table.insert(given, {'description', ARGV[3]}) end
if ARGV[4] == '1' then table.insert(given, {'markdown', ARGV[5]}) end
if ARGV[6] == '1' then table.insert(given, {'tags', ARGV[7]}) end
for i, field in ipairs(scope) do
  if ARGV[9 + 2 * i] == '1' then table.insert(given, {field, ARGV[10 + 2 * i]}) end
end
local changed = {}
for _, f in ipairs(given) do
  if (redis.call('HGET', key, f[1]) or '') ~= f[2] then table.insert(changed, f[1]) end
end
if #changed == 0 then return 2 end
local fields = {'last_modified', now}
if ARGV[2] == '1' then table.insert(fields, 'description'); table.insert(fields, ARGV[3]) end
if ARGV[4] == '1' then table.insert(fields, 'markdown'); table.insert(fields, ARGV[5]) end
if ARGV[6] == '1' then table.insert(fields, 'tags'); table.insert(fields, ARGV[7]) end
redis.call('HSET', key, unpack(fields))
set_scope()
local change = cjson.decode(ARGV[9])
change.fields = changed
record(key, KEYS[2], cjson.encode(change), ARGV[10])
return 0
