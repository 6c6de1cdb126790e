-- Stores a new ruleset hash only if the key is free, and records the change
-- (record.lua is prepended).
-- KEYS[1]: ruleset:{name}; KEYS[2]: its history list (HistoryKey, same slot)
-- ARGV: description, tags_json, markdown, created_at, last_modified, the change, the history's length,
--       globs, always, targets (each left out of the hash when empty)
-- Returns 1 when created, 0 when the key exists.
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'description', ARGV[1], 'tags', ARGV[2], 'markdown', ARGV[3],
  'created_at', ARGV[4], 'last_modified', ARGV[5])
for i, field in ipairs({'globs', 'always', 'targets'}) do
  if ARGV[7 + i] ~= '' then redis.call('HSET', KEYS[1], field, ARGV[7 + i]) end
end
record(KEYS[1], KEYS[2], ARGV[6], ARGV[7])
return 1
