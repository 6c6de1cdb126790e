package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/sqlitex"
)

// Config is .sudocode/config.json.
type Config struct {
	Prefix  string `json:"prefix"`
	Version int    `json:"version"`
}

// Repo is an open tracker.
type Repo struct {
	Dir    string // the .sudocode directory
	Config Config
	Actor  string           // recorded as created_by on every change
	Clock  func() time.Time // nil: time.Now
	// Notify receives what the tracker did on its own that the user
	// should know (a merge conflict repaired, git's merge driver
	// registered); nil: logged as a warning.
	Notify func(msg string)
	db     *sql.DB
	fresh  bool // the cache was checked against the files by this Repo
	built  bool // a change of this Repo committed: the cache exists (startDirect need not look)
	// rebuilds counts the cache's rebuilds from every line, which a
	// change of a few lines should not need (resync.go).
	rebuilds int
	kept     map[string]*sql.Stmt // nil unless KeepStatements
	watch    *fileWatch           // nil unless WatchFiles
}

// Recheck makes the next read compare the cache with the files again: a
// long-lived Repo calls it before each request, so that hand edits and git
// operations between requests are seen.
func (r *Repo) Recheck() { r.fresh = false }

// Open opens the tracker in dir (a .sudocode directory). The cache is
// brought up to date with the files by the first read or change.
func Open(ctx context.Context, dir, actor string) (*Repo, error) {
	raw, err := os.ReadFile(filepath.Join(dir, ConfigFile))
	if err != nil {
		return nil, fault.Wrap(fault.Unavailable, err, "cannot read the tracker's config")
	}
	var cfg Config
	if err := json.Unmarshal(raw, &cfg); err != nil || cfg.Prefix == "" {
		return nil, fault.New(fault.Invalid, "%s is not a valid tracker config", filepath.Join(dir, ConfigFile)).
			WithHint(`it must hold {"prefix": "...", "version": 1}`)
	}
	if err := refuseLinks(dir); err != nil {
		return nil, err
	}
	db, err := sqlitex.Open(ctx, filepath.Join(dir, CacheFile), 1, "SELECT 1")
	if err != nil {
		return nil, fault.Wrap(fault.Unavailable, err, "cannot open the tracker cache")
	}
	r := &Repo{Dir: dir, Config: cfg, Actor: actor, db: db}
	if err := r.migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return r, nil
}

// localFiles are the tracker's own files beside the records: never
// committed, but a repository can hold anything under those names.
var localFiles = []string{LockFile, CacheFile, CacheFile + "-wal", CacheFile + "-shm", CacheFile + "-journal"} // -journal: a build from nothing (direct.go)

// refuseLinks refuses to work when one of the local files is a symbolic
// link or anything but a plain file: SQLite and the lock would write
// through it, to a file of the user's that the repository named.
func refuseLinks(dir string) error {
	for _, f := range localFiles {
		fi, err := os.Lstat(filepath.Join(dir, f))
		if err == nil && !fi.Mode().IsRegular() {
			return fault.New(fault.Invalid, "%s is not a plain file (%s)", filepath.Join(dir, f), fi.Mode().Type()).
				WithHint("remove it: the tracker makes its cache and lock files itself, and never commits them")
		}
	}
	return nil
}

// Close releases the cache.
func (r *Repo) Close() error {
	r.watch.stop()
	for _, st := range r.kept {
		st.Close()
	}
	return r.db.Close()
}

// Root is the project directory, the parent of .sudocode.
func (r *Repo) Root() string { return filepath.Dir(r.Dir) }

func (r *Repo) notify(msg string) {
	if r.Notify != nil {
		r.Notify(msg)
		return
	}
	slog.Warn(msg, "tracker", r.Dir)
}

func (r *Repo) now() time.Time {
	t := time.Now()
	if r.Clock != nil {
		t = r.Clock()
	}
	return t.UTC().Truncate(time.Millisecond)
}

// migrate gives a new cache, or one made by another version, the current
// tables (empty: the refresh that follows fills them from the files).
func (r *Repo) migrate(ctx context.Context) error {
	if r.schemaCurrent(ctx, r.db) {
		return nil
	}
	l, err := lockFile(filepath.Join(r.Dir, LockFile))
	if err != nil {
		return lockErr(err)
	}
	defer l.unlock()
	tx, err := r.db.BeginTx(ctx, nil)
	if err != nil {
		return cacheErr(err)
	}
	defer tx.Rollback()
	if r.schemaCurrent(ctx, tx) {
		return nil
	}
	if _, err := tx.ExecContext(ctx, dropAll+schema); err != nil {
		return cacheErr(err)
	}
	return cacheErr(tx.Commit())
}

func (r *Repo) schemaCurrent(ctx context.Context, q querier) bool {
	var v string
	err := q.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'schema'`).Scan(&v)
	return err == nil && v == schemaVersion
}

// refresh rebuilds what is stale: the whole cache when a JSONL file changed
// behind it, and the anchors of a spec whose markdown changed.
//
// While a writer holds the lock, its files run ahead of the cache until it
// commits: a reader then answers from the cache as last committed (a
// consistent state, the one before that change) rather than queueing for
// the lock behind every writer. The writer brings the cache up to date
// with the files, a pull's changes included, before it commits.
func (r *Repo) refresh(ctx context.Context) error {
	stale, err := r.stale(ctx, r.db)
	if err != nil || !stale {
		return err
	}
	if !r.schemaCurrent(ctx, r.db) {
		return r.Update(ctx, nil) // no cache to answer from: wait
	}
	l, ok, err := tryLockFile(filepath.Join(r.Dir, LockFile))
	if err != nil {
		return lockErr(err)
	}
	if !ok {
		return nil
	}
	defer l.unlock()
	return r.updateLocked(ctx, l, nil)
}

type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// stale reports whether the cache differs from the files.
func (r *Repo) stale(ctx context.Context, q querier) (bool, error) {
	jsonl, err := r.jsonlStale(ctx, q)
	if err != nil || jsonl {
		return jsonl, err
	}
	bodies, err := r.changedBodies(ctx, q)
	return len(bodies) > 0, err
}

func (r *Repo) jsonlStale(ctx context.Context, q querier) (bool, error) {
	files, whole, _, err := r.staleFiles(ctx, q)
	return whole || len(files) > 0, err
}

// staleFiles returns the shard files that changed behind the cache (added,
// removed or rewritten), or whole when the cache is of another schema (or
// empty) or a first-layout file is there to migrate: then it is rebuilt.
// now is the files' stamps as scanned (nil when whole).
func (r *Repo) staleFiles(ctx context.Context, q querier) (files []string, whole bool, now *shardStats, err error) {
	var schema, known string
	err = q.QueryRowContext(ctx, `SELECT coalesce((SELECT value FROM meta WHERE key = 'schema'), ''), coalesce((SELECT value FROM meta WHERE key = ?), '')`, digestKey).Scan(&schema, &known)
	if err != nil {
		return nil, false, nil, cacheErr(err)
	}
	if schema != schemaVersion {
		return nil, true, nil, nil // no cache yet, or another version's
	}
	rs, err := openRecords(r.Dir)
	if err != nil {
		return nil, false, nil, err
	}
	defer rs.Close()
	if len(rs.legacy()) > 0 {
		return nil, true, nil, nil
	}
	now, err = r.scanShards(rs)
	if err != nil {
		return nil, false, nil, err
	}
	if now.digest() == known {
		return nil, false, now, nil // the usual case: one comparison
	}
	have := map[string]string{}
	rows, err := q.QueryContext(ctx, `SELECT file, stat FROM shard_stats`)
	if err != nil {
		return nil, false, nil, cacheErr(err)
	}
	defer rows.Close()
	for rows.Next() {
		var f, st string
		if err := rows.Scan(&f, &st); err != nil {
			return nil, false, nil, cacheErr(err)
		}
		have[f] = st
	}
	if err := rows.Err(); err != nil {
		return nil, false, nil, cacheErr(err)
	}
	present := now.files()
	for p, st := range present {
		if have[p] != st {
			files = append(files, p)
		}
	}
	for p := range have {
		if present[p] == "" {
			files = append(files, p) // removed
		}
	}
	slices.Sort(files)
	return files, false, now, nil
}

// digestKey names, in the cache's meta table, the digest of the shard
// files' stamps as the cache last saw them (shardStats.digest); the
// shard_stats table holds each file's.
const digestKey = "files"

// bodyChange is a spec whose markdown file differs from the cache's view.
type bodyChange struct {
	id, path, stat string
}

// Only specs that have feedback are checked: a body matters to the cache
// only through the anchors on it (show reads the file itself).
func (r *Repo) changedBodies(ctx context.Context, q querier) ([]bodyChange, error) {
	rows, err := q.QueryContext(ctx, `SELECT id, file_path, body_stat FROM specs WHERE id IN (SELECT spec_id FROM feedback)`)
	if err != nil {
		return nil, cacheErr(err)
	}
	defer rows.Close()
	b, err := openBodies(r.Dir)
	if err != nil {
		return nil, err
	}
	defer b.Close()
	var out []bodyChange
	for rows.Next() {
		var c bodyChange
		var old string
		if err := rows.Scan(&c.id, &c.path, &old); err != nil {
			return nil, cacheErr(err)
		}
		if c.stat = b.stat(c.path); c.stat != old {
			out = append(out, c)
		}
	}
	return out, rows.Err()
}

// fileStat identifies a file's version cheaply: size and modification time.
func fileStat(path string) string {
	fi, err := os.Stat(path)
	if err != nil {
		return "absent"
	}
	return statOf(fi)
}

func statOf(fi os.FileInfo) string { return fmt.Sprintf("%d:%d", fi.Size(), fi.ModTime().UnixNano()) }

func cacheErr(err error) error {
	if err == nil {
		return nil
	}
	return fault.Wrap(fault.Unavailable, err, "tracker cache")
}
