-- Stores a new ruleset hash only if the key is free.
-- KEYS[1]: ruleset:{name}; ARGV: description, tags_json, markdown, created_at, last_modified
-- Returns 1 when created, 0 when the key exists.
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'description', ARGV[1], 'tags', ARGV[2], 'markdown', ARGV[3],
  'created_at', ARGV[4], 'last_modified', ARGV[5])
return 1
