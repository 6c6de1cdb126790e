// Package sqlitestore keeps rulesets in one SQLite file: the embedded store
// that serves when no Valkey is configured. WAL mode and immediate
// transactions make it safe for several server processes at once.
package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/rulesets"
	"github.com/sudocode/sudocode/internal/sqlitex"
)

// FileName is the database file inside a store directory.
const FileName = "rulesets.db"

const schema = `CREATE TABLE IF NOT EXISTS rulesets (
	name          TEXT PRIMARY KEY,
	description   TEXT NOT NULL,
	tags          TEXT NOT NULL, -- JSON array, as in the Valkey layout
	markdown      TEXT NOT NULL,
	created_at    TEXT NOT NULL, -- RFC3339 UTC
	last_modified TEXT NOT NULL,
	globs         TEXT NOT NULL DEFAULT '', -- the scope (rulesets.EncodeScope), '' when unset
	always        TEXT NOT NULL DEFAULT '',
	targets       TEXT NOT NULL DEFAULT ''
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS rulesets_in_order ON rulesets (created_at, name); -- list order, and the pages' keys
CREATE TABLE IF NOT EXISTS ruleset_history (
	seq    INTEGER PRIMARY KEY AUTOINCREMENT, -- the order of the changes, newest highest
	name   TEXT NOT NULL,
	change TEXT NOT NULL -- rulesets.EncodeChange, as in the Valkey layout
);
CREATE INDEX IF NOT EXISTS ruleset_history_of_name ON ruleset_history (name, seq);`

const insert = `INSERT INTO rulesets (name, description, tags, markdown, created_at, last_modified, globs, always, targets)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`

// addScopeColumns upgrades a store made before rulesets had a scope. Two
// processes may upgrade at once: the loser's "duplicate column" is the
// upgrade done.
func addScopeColumns(ctx context.Context, db *sql.DB) error {
	for _, col := range rulesets.ScopeFields {
		var n int
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM pragma_table_info('rulesets') WHERE name = ?`, col).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			continue
		}
		_, err := db.ExecContext(ctx, `ALTER TABLE rulesets ADD COLUMN `+col+` TEXT NOT NULL DEFAULT ''`)
		if err != nil && !strings.Contains(err.Error(), "duplicate column") {
			return err
		}
	}
	return nil
}

// Store is a rulesets.Store on SQLite.
type Store struct {
	db  *sql.DB
	get *sql.Stmt
	// wmu lets one write transaction of this process at a time ask
	// SQLite for the write lock: SQLite's busy wait is not fair, and with
	// many writers in one process one of them could wait out the whole
	// busy_timeout and fail with SQLITE_BUSY. Other processes still queue
	// on the immediate transaction.
	wmu sync.Mutex
}

var _ rulesets.Store = (*Store)(nil)

// Open opens (creating if needed) the store in dir.
func Open(ctx context.Context, dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fault.Wrap(fault.Unavailable, err, "failed to open the ruleset store")
	}
	path := filepath.Join(dir, FileName)
	db, err := sqlitex.Open(ctx, path, 4, schema)
	if err != nil {
		return nil, fault.Wrap(fault.Unavailable, err, "failed to open the ruleset store at "+path)
	}
	if err := addScopeColumns(ctx, db); err != nil {
		db.Close()
		return nil, fault.Wrap(fault.Unavailable, err, "failed to upgrade the ruleset store at "+path)
	}
	get, err := db.PrepareContext(ctx, `SELECT description, tags, markdown, created_at, last_modified, globs, always, targets FROM rulesets WHERE name = ?`)
	if err != nil {
		db.Close()
		return nil, fault.Wrap(fault.Internal, err, "failed to prepare the ruleset store")
	}
	return &Store{db: db, get: get}, nil
}

// Close releases the database.
func (s *Store) Close() error {
	s.get.Close()
	return s.db.Close()
}

// Get implements rulesets.Store.
func (s *Store) Get(ctx context.Context, name string) (rulesets.Ruleset, error) {
	return s.getIn(ctx, nil, name)
}

// getIn reads a ruleset, inside tx when it is not nil.
func (s *Store) getIn(ctx context.Context, tx *sql.Tx, name string) (rulesets.Ruleset, error) {
	stmt := s.get
	if tx != nil {
		stmt = tx.StmtContext(ctx, s.get)
	}
	var rec rulesets.Record
	r := rulesets.Ruleset{Name: name}
	err := stmt.QueryRowContext(ctx, name).Scan(&r.Description, &rec.Tags, &r.Markdown, &rec.CreatedAt, &rec.LastModified,
		&rec.Globs, &rec.Always, &rec.Targets)
	if errors.Is(err, sql.ErrNoRows) {
		return rulesets.Ruleset{}, rulesets.NotFound(name)
	}
	if err != nil {
		return rulesets.Ruleset{}, storeErr(err)
	}
	if err := rec.DecodeRuleset(&r); err != nil {
		return rulesets.Ruleset{}, err
	}
	return r, nil
}

// Upsert implements rulesets.Store in one immediate transaction, so that a
// racing create is serialised behind it and becomes an update.
func (s *Store) Upsert(ctx context.Context, p rulesets.Patch, now time.Time) (bool, error) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return false, storeErr(err)
	}
	defer tx.Rollback()
	cur, err := s.getIn(ctx, tx, p.Name)
	exists := err == nil
	if err != nil && !fault.Is(err, fault.NotFound) {
		return false, err
	}
	created, updated := rulesets.PatchChanges(p, now)
	if exists {
		if updated.Fields = rulesets.ChangedFields(cur, p); len(updated.Fields) == 0 {
			return false, nil // nothing to write, nor to record
		}
	}
	ts := rulesets.Timestamp(now)
	if !exists {
		if p.Description == nil {
			return false, rulesets.ErrDescriptionRequired
		}
		if p.Markdown == nil {
			return false, rulesets.ErrMarkdownRequired
		}
		_, vals := rulesets.PatchScope(p)
		_, err = tx.ExecContext(ctx, insert, p.Name, *p.Description, rulesets.EncodeTags(p.Tags), *p.Markdown, ts, ts, vals[0], vals[1], vals[2])
	} else {
		sets, args := []string{"last_modified = ?"}, []any{ts}
		if p.Description != nil {
			sets, args = append(sets, "description = ?"), append(args, *p.Description)
		}
		if p.Markdown != nil {
			sets, args = append(sets, "markdown = ?"), append(args, *p.Markdown)
		}
		if p.SetTags {
			sets, args = append(sets, "tags = ?"), append(args, rulesets.EncodeTags(p.Tags))
		}
		set, vals := rulesets.PatchScope(p)
		for i, f := range rulesets.ScopeFields {
			if set[i] {
				sets, args = append(sets, f+" = ?"), append(args, vals[i])
			}
		}
		_, err = tx.ExecContext(ctx, `UPDATE rulesets SET `+strings.Join(sets, ", ")+` WHERE name = ?`, append(args, p.Name)...)
	}
	if err != nil {
		return false, storeErr(err)
	}
	change := updated
	if !exists {
		change = created
	}
	if err := s.record(ctx, tx, p.Name, change); err != nil {
		return false, err
	}
	if err := tx.Commit(); err != nil {
		return false, storeErr(err)
	}
	return !exists, nil
}

// Create implements rulesets.Store.
func (s *Store) Create(ctx context.Context, r rulesets.Ruleset, by string) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		scope := rulesets.EncodeScope(r.Scope)
		res, err := tx.ExecContext(ctx, insert+` ON CONFLICT (name) DO NOTHING`,
			r.Name, r.Description, rulesets.EncodeTags(r.Tags), r.Markdown, rulesets.Timestamp(r.CreatedAt), rulesets.Timestamp(r.LastModified),
			scope[0], scope[1], scope[2])
		if err != nil {
			return storeErr(err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fault.New(fault.Conflict, "ruleset '%s' already exists", r.Name)
		}
		return s.record(ctx, tx, r.Name, rulesets.CreateChange(r, by))
	})
}

// Delete implements rulesets.Store.
func (s *Store) Delete(ctx context.Context, name, by string, now time.Time) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM rulesets WHERE name = ?`, name)
		if err != nil {
			return storeErr(err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return rulesets.NotFound(name)
		}
		return s.record(ctx, tx, name, rulesets.DeleteChange(by, now))
	})
}

// History implements rulesets.Store.
func (s *Store) History(ctx context.Context, name string, limit int) ([]rulesets.Change, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT change FROM ruleset_history WHERE name = ? ORDER BY seq DESC LIMIT ?`, name, limit)
	if err != nil {
		return nil, storeErr(err)
	}
	defer rows.Close()
	out := []rulesets.Change{}
	for rows.Next() {
		var enc string
		if err := rows.Scan(&enc); err != nil {
			return nil, storeErr(err)
		}
		c, err := rulesets.DecodeChange(name, enc)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, storeErr(err)
	}
	return out, nil
}

// inTx runs fn in a transaction it commits when fn succeeds.
func (s *Store) inTx(ctx context.Context, fn func(*sql.Tx) error) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return storeErr(err)
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return storeErr(err)
	}
	return nil
}

// record appends a change to name's history in tx, with its version (one
// more than the newest's) and the ruleset as the change left it, and drops
// what passes rulesets.MaxHistory.
func (s *Store) record(ctx context.Context, tx *sql.Tx, name string, c rulesets.Change) error {
	version := 1
	var prev string
	err := tx.QueryRowContext(ctx, `SELECT change FROM ruleset_history WHERE name = ? ORDER BY seq DESC LIMIT 1`, name).Scan(&prev)
	switch {
	case err == nil:
		version = rulesets.VersionOf(prev) + 1
	case !errors.Is(err, sql.ErrNoRows):
		return storeErr(err)
	}
	var state *rulesets.Ruleset
	if c.Action != rulesets.ActionDeleted {
		r, err := s.getIn(ctx, tx, name)
		if err != nil {
			return err
		}
		state = &r
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO ruleset_history (name, change) VALUES (?, ?)`, name, rulesets.EncodeVersioned(c, version, state)); err != nil {
		return storeErr(err)
	}
	_, err = tx.ExecContext(ctx, `DELETE FROM ruleset_history WHERE name = ?1 AND seq <=
		(SELECT seq FROM ruleset_history WHERE name = ?1 ORDER BY seq DESC LIMIT 1 OFFSET ?2)`, name, rulesets.MaxHistory)
	if err != nil {
		return storeErr(err)
	}
	return nil
}

// Search implements rulesets.Store with SQLite's GLOB, in which '[' is the
// only other special character; it is escaped so that it matches itself.
func (s *Store) Search(ctx context.Context, pattern string) ([]rulesets.Summary, error) {
	return s.summaries(ctx, `SELECT name, description, tags, created_at, last_modified FROM rulesets WHERE name GLOB ? ORDER BY created_at, name`,
		glob(pattern))
}

func glob(pattern string) string { return strings.ReplaceAll(pattern, "[", "[[]") }

// SearchPage implements rulesets.Store: the rows after the position, in
// the order of the index on (created_at, name).
func (s *Store) SearchPage(ctx context.Context, pattern string, after *rulesets.PageKey, limit int) (rulesets.Page, error) {
	var p rulesets.Page
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM rulesets WHERE name GLOB ?`, glob(pattern)).Scan(&p.Total); err != nil {
		return p, storeErr(err)
	}
	if after == nil {
		after = &rulesets.PageKey{}
	}
	items, err := s.summaries(ctx, `SELECT name, description, tags, created_at, last_modified FROM rulesets
		WHERE name GLOB ? AND (created_at, name) > (?, ?) ORDER BY created_at, name LIMIT ?`,
		glob(pattern), after.CreatedAt, after.Name, limit+1)
	if err != nil {
		return p, err
	}
	p.More = len(items) > limit
	p.Items = items[:min(len(items), limit)]
	return p, nil
}

// summaries runs a query of the columns name, description, tags,
// created_at and last_modified.
func (s *Store) summaries(ctx context.Context, query string, args ...any) ([]rulesets.Summary, error) {
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, storeErr(err)
	}
	defer rows.Close()
	out := []rulesets.Summary{}
	for rows.Next() {
		var r rulesets.Summary
		var tags, created, modified string
		if err := rows.Scan(&r.Name, &r.Description, &tags, &created, &modified); err != nil {
			return nil, storeErr(err)
		}
		if err := (rulesets.Record{Tags: tags, CreatedAt: created, LastModified: modified}).Decode(&r); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, storeErr(err)
	}
	return out, nil
}

// Names implements rulesets.Store.
func (s *Store) Names(ctx context.Context) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT name FROM rulesets ORDER BY name`)
	if err != nil {
		return nil, storeErr(err)
	}
	defer rows.Close()
	names := []string{}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, storeErr(err)
		}
		names = append(names, n)
	}
	return names, storeErr(rows.Err())
}

func storeErr(err error) error {
	if err == nil {
		return nil
	}
	return fault.Wrap(fault.Unavailable, err, "ruleset store")
}
