package store

import "context"

// A cache built from nothing, after a clone, is a few hundred megabytes at
// 100,000 issues. In WAL mode every page goes to the WAL at commit and is
// copied again into the database by the checkpoint that follows, which
// took a second of a five-second build. A cache file that holds nothing
// yet is therefore built with a rollback journal, which writes a new page
// once, straight into the file (a new page has no old content to journal),
// and switched back to WAL when done. SQLite only changes a database from
// WAL when no other connection has it open; when one has, the build stays
// in WAL. A process that opens the cache during such a build waits, as
// its switch to WAL needs the build's lock (sqlitex.Open retries it).

// directPages is the most pages a cache may have for a direct build: the
// empty tables and indexes of a new file, not the freed pages of a cache
// of another version, whose reuse a rollback journal would copy.
const directPages = 64

// startDirect switches the connection to a rollback journal when the
// cache is a new file still to be built; it reports whether it did.
func (r *Repo) startDirect(ctx context.Context) bool {
	if r.built || r.schemaCurrent(ctx, r.db) {
		return false
	}
	var pages int
	if err := r.db.QueryRowContext(ctx, `PRAGMA page_count`).Scan(&pages); err != nil || pages > directPages {
		return false
	}
	var mode string
	err := r.db.QueryRowContext(ctx, `PRAGMA journal_mode = DELETE`).Scan(&mode)
	return err == nil && mode == "delete"
}

// endDirect puts the cache back in WAL mode, once the build's transaction
// is over (committed or not). If another process holds the file open just
// then, its connection made it WAL already, or the next opener does.
func (r *Repo) endDirect(ctx context.Context) {
	r.db.ExecContext(ctx, `PRAGMA journal_mode = WAL`)
}
