package store

import "github.com/sudocode/sudocode/internal/tracker"

// schemaVersion changes whenever the cache's tables change; a cache of
// another version is dropped and rebuilt from the files.
const schemaVersion = "14"

// schema is the cache's tables with their indexes, tallies and triggers.
// A rebuild creates tablesSchema, loads it (load.go), then adds the rest: bulk rows
// go in faster without indexes to keep, and the tallies are counted once.
var schema = tablesSchema + indexSchema + tallySchema

const tablesSchema = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS shard_stats (file TEXT PRIMARY KEY, stat TEXT NOT NULL) WITHOUT ROWID; -- each shard file as the cache last saw it (shardstats.go)
CREATE TABLE IF NOT EXISTS issues (
	id TEXT PRIMARY KEY, uuid TEXT NOT NULL, title TEXT NOT NULL, description TEXT NOT NULL,
	status TEXT NOT NULL, type TEXT NOT NULL, priority INTEGER NOT NULL, assignee TEXT, parent_id TEXT,
	created_ns INTEGER NOT NULL, updated_ns INTEGER NOT NULL, closed_ns INTEGER,
	line TEXT NOT NULL, -- the record's canonical JSONL line
	blocked INTEGER NOT NULL DEFAULT 0, -- an unfinished blocker, own or inherited (blocked.go keeps it current)
	blockers BLOB, -- those blockers (blockers.go); NULL for none
	shard TEXT NOT NULL, -- the shard file holding the record (tracker.ShardOf)
	hash INTEGER NOT NULL -- of line, to find the lines a pull changed (resync.go)
);
CREATE TABLE IF NOT EXISTS specs (
	id TEXT PRIMARY KEY, uuid TEXT NOT NULL, title TEXT NOT NULL, description TEXT,
	status TEXT NOT NULL, type TEXT NOT NULL, priority INTEGER NOT NULL, file_path TEXT NOT NULL, parent_id TEXT,
	created_ns INTEGER NOT NULL, updated_ns INTEGER NOT NULL,
	line TEXT NOT NULL,
	body_stat TEXT NOT NULL DEFAULT '', body_hash TEXT NOT NULL DEFAULT '', -- of the markdown file when last read
	blocked INTEGER NOT NULL DEFAULT 0, blockers BLOB,
	shard TEXT NOT NULL, hash INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS rels (
	from_id TEXT NOT NULL, to_id TEXT NOT NULL, type TEXT NOT NULL,
	from_type TEXT NOT NULL, to_type TEXT NOT NULL, created_ns INTEGER NOT NULL, created_by TEXT NOT NULL,
	to_done INTEGER NOT NULL, -- whether to_id is done (closed; approved or deprecated), kept current on every write
	PRIMARY KEY (from_id, type, to_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS feedback (
	id TEXT PRIMARY KEY, issue_id TEXT NOT NULL, spec_id TEXT NOT NULL, type TEXT NOT NULL,
	status TEXT NOT NULL, anchor_status TEXT NOT NULL, created_ns INTEGER NOT NULL, line TEXT NOT NULL,
	shard TEXT NOT NULL, hash INTEGER NOT NULL
);
`

// indexSchema holds what the reads look up. An index that only some rows
// need is partial: the rebuild sorts, and the cache stores, only those.
var indexSchema = `
CREATE INDEX IF NOT EXISTS issues_by_status ON issues (status, blocked, priority, created_ns, id); -- ready's order
CREATE INDEX IF NOT EXISTS issues_by_updated ON issues (updated_ns);
CREATE INDEX IF NOT EXISTS issues_by_shard ON issues (shard, id, hash);
CREATE INDEX IF NOT EXISTS issues_by_created ON issues (created_ns);
CREATE INDEX IF NOT EXISTS issues_by_closed ON issues (closed_ns) WHERE closed_ns IS NOT NULL;
CREATE INDEX IF NOT EXISTS issues_in_order ON issues (priority, created_ns, id); -- the lists' order and cursors
CREATE INDEX IF NOT EXISTS issues_unfinished ON issues (id, title, status, type) WHERE NOT ` + issueDoneSQL + `; -- a blocker's description, without reading its record
CREATE INDEX IF NOT EXISTS issues_blocked_in_order ON issues (priority, created_ns, id) WHERE ` + issueBlockedSQL + `; -- blocked's order: its rows alone, not every issue looked up
CREATE INDEX IF NOT EXISTS specs_by_status ON specs (status, blocked, priority, created_ns, id);
CREATE INDEX IF NOT EXISTS specs_by_updated ON specs (updated_ns);
CREATE INDEX IF NOT EXISTS specs_in_order ON specs (priority, created_ns, id);
CREATE INDEX IF NOT EXISTS specs_blocked_in_order ON specs (priority, created_ns, id) WHERE ` + specBlockedSQL + `;
CREATE INDEX IF NOT EXISTS specs_by_shard ON specs (shard, id, hash);
CREATE INDEX IF NOT EXISTS rels_to ON rels (to_id, type); -- the primary key serves lookups from an item
-- the blocked flags' start and what blocked items wait for; to_done, always 0 here, lets the index
-- answer the condition alone (the partial index's WHERE does not), without reading the table
CREATE INDEX IF NOT EXISTS rels_open_blocking ON rels (from_id, to_done) WHERE ` + blockingSQL + ` AND to_done = 0;
CREATE INDEX IF NOT EXISTS rels_parent_child ON rels (to_id, from_id) WHERE type = '` + string(tracker.RelParentChild) + `'; -- an item's parents, and all of them in a tenth of the reading
CREATE INDEX IF NOT EXISTS feedback_by_spec ON feedback (spec_id);
CREATE INDEX IF NOT EXISTS feedback_by_issue ON feedback (issue_id);
CREATE INDEX IF NOT EXISTS feedback_in_order ON feedback (created_ns, id);
CREATE INDEX IF NOT EXISTS feedback_by_shard ON feedback (shard, id, hash);
`

const dropAll = `
DROP TABLE IF EXISTS meta; DROP TABLE IF EXISTS issues; DROP TABLE IF EXISTS specs;
DROP TABLE IF EXISTS rels; DROP TABLE IF EXISTS feedback; DROP TABLE IF EXISTS tally; DROP TABLE IF EXISTS shard_stats;`
