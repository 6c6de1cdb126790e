-- Deletes a ruleset hash, and records the change when there was one
-- (record.lua is prepended).
-- KEYS[1]: ruleset:{name}; KEYS[2]: its history list (HistoryKey, same slot)
-- ARGV: the change, the history's length
-- Returns 1 when deleted, 0 when the key was absent.
if redis.call('DEL', KEYS[1]) == 0 then return 0 end
record(KEYS[1], KEYS[2], ARGV[1], ARGV[2])
return 1
