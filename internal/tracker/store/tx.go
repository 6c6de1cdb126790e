package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sort"
	"time"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/anchor"
)

// Tx is one change to the tracker, made under the exclusive lock. Changes
// go to the cache's transaction; at commit the changed files are rewritten
// from it (spec bodies first, then JSONL), and the transaction records
// what the files now are.
type Tx struct {
	view
	tx      *sql.Tx
	now     time.Time
	lines   map[string]map[string][]byte // JSONL file → id → its record's new line
	rebuilt bool                         // the files were read whole: rewrite them whole
	load    *loader                      // rows are being put from the files: loaded at the end (load.go)
	seeds   map[string]bool              // items whose blocked flag may have moved (blocked.go)
	stmts   map[string]*sql.Stmt         // prepared once per change: a rebuild runs each 100,000s of times
	bodies  map[string][]byte            // spec file_path → new markdown
}

// Update runs fn as one change. fn nil only brings the cache up to date.
func (r *Repo) Update(ctx context.Context, fn func(*Tx) error) error {
	unlock, err := lockFile(filepath.Join(r.Dir, LockFile))
	if err != nil {
		return fault.Wrap(fault.Unavailable, err, "cannot lock the tracker")
	}
	defer unlock()
	return r.updateLocked(ctx, fn)
}

// updateLocked is Update once the lock is held.
func (r *Repo) updateLocked(ctx context.Context, fn func(*Tx) error) error {
	r.removeOrphans()
	sqlTx, err := r.db.BeginTx(ctx, nil)
	if err != nil {
		return cacheErr(err)
	}
	defer sqlTx.Rollback()
	t := &Tx{view: view{ctx: ctx, r: r, q: sqlTx}, tx: sqlTx, now: r.now(), lines: map[string]map[string][]byte{}, bodies: map[string][]byte{}, seeds: map[string]bool{}, stmts: map[string]*sql.Stmt{}}
	if err := t.sync(); err != nil {
		return err
	}
	if fn != nil {
		if err := fn(t); err != nil {
			return err
		}
	}
	if err := t.settle(); err != nil {
		return err
	}
	if err := t.flush(); err != nil {
		return err
	}
	// Every change moves the generation, which memos of derived data key on.
	if _, err := sqlTx.ExecContext(ctx, `INSERT INTO meta VALUES ('gen', '1') ON CONFLICT (key) DO UPDATE SET value = value + 1`); err != nil {
		return cacheErr(err)
	}
	if err := sqlTx.Commit(); err != nil {
		return cacheErr(err)
	}
	r.fresh = true
	return nil
}

// sync rebuilds the cache when a JSONL file changed behind it, then
// relocates the anchors on every spec whose markdown changed.
func (t *Tx) sync() error {
	files, whole, err := t.r.staleFiles(t.ctx, t.tx)
	if err != nil {
		return err
	}
	switch {
	case !whole && slices.Equal(files, []string{IssuesFile}):
		// After a pull or a checkout, usually only some issues changed.
		done, err := t.syncIssues()
		if err != nil {
			return err
		}
		whole = !done
	case len(files) > 0:
		whole = true
	}
	if whole {
		if err := t.rebuild(); err != nil {
			return err
		}
		t.rebuilt = true
	}
	changes, err := t.r.changedBodies(t.ctx, t.tx)
	if err != nil {
		return err
	}
	if len(changes) == 0 {
		return nil
	}
	b, err := openBodies(t.r.Dir)
	if err != nil {
		return err
	}
	defer b.Close()
	for _, c := range changes {
		body, err := b.read(c.path) // a deleted body reads as empty: its anchors go stale
		if err != nil {
			// A body the tracker may not read says nothing about the
			// anchors: they stay as they are until it is fixed.
			if _, err := t.tx.ExecContext(t.ctx, `UPDATE specs SET body_stat = ? WHERE id = ?`, c.stat, c.id); err != nil {
				return cacheErr(err)
			}
			continue
		}
		if err := t.bodyChanged(c.id, body, c.stat); err != nil {
			return err
		}
	}
	return nil
}

// rebuild replaces the cache's content with the files'. The rows go into
// bare tables through a loader (load.go), which derives the done flags of
// links, the blocked flags and the tallies from the records; the indexes
// are then built once for all of them.
func (t *Tx) rebuild() error {
	// The records read are all live until the end: collecting garbage as
	// often as usual would only walk them again and again.
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	issues, specs, feedback, err := readFiles(t.r.Dir)
	if err != nil {
		return err
	}
	// A bigger page cache for the bulk load, back to the default after.
	if _, err := t.tx.ExecContext(t.ctx, `PRAGMA cache_size = -131072;`+dropAll+tablesSchema); err != nil {
		return cacheErr(err)
	}
	defer t.tx.ExecContext(t.ctx, `PRAGMA cache_size = -2000`)
	t.load = newLoader(t, issues, specs, len(feedback))
	t.r.rebuilds++
	defer func() {
		t.load.finishWriter() // after an error too: the transaction must be the caller's again
		t.load = nil
	}()
	clear(t.seeds)
	clear(t.lines) // every record is put again: the lines become the files' (see writeJSONL)
	for i := range issues {
		if err := t.putIssue(&issues[i]); err != nil {
			return err
		}
	}
	for i := range specs {
		if err := t.putSpec(&specs[i]); err != nil {
			return err
		}
	}
	for i := range feedback {
		if err := t.putFeedback(&feedback[i]); err != nil {
			return err
		}
	}
	if err := t.load.write(); err != nil {
		return err
	}
	if _, err := t.tx.ExecContext(t.ctx, indexSchema+tallySchema); err != nil {
		return cacheErr(err)
	}
	if _, err := t.tx.ExecContext(t.ctx, `INSERT INTO meta VALUES ('schema', ?)`, schemaVersion); err != nil {
		return cacheErr(err)
	}
	for _, f := range []string{IssuesFile, SpecsFile, FeedbackFile} {
		if err := t.recordStat(f); err != nil {
			return err
		}
	}
	return nil
}

// exec runs a statement of the change, prepared on its first use.
func (t *Tx) exec(query string, args ...any) (sql.Result, error) {
	st, ok := t.stmts[query]
	if !ok {
		var err error
		if st, err = t.tx.PrepareContext(t.ctx, query); err != nil {
			return nil, err
		}
		t.stmts[query] = st
	}
	return st.ExecContext(t.ctx, args...)
}

// bodyChanged relocates the anchors on spec id, whose markdown is now
// body, and records the file's new stat and hash. An anchor is rewritten
// only when more than its verification time changed, so that a read never
// causes a spurious diff. When the cache does not know which body the
// anchors were last verified on (it was just rebuilt from the files), an
// anchor still in place is left as the files have it: a rebuild must not
// turn a relocated anchor back to valid, or rewrite its contexts.
func (t *Tx) bodyChanged(specID string, body []byte, stat string) error {
	sum := sha256.Sum256(body)
	hash := hex.EncodeToString(sum[:])
	var oldHash string
	if err := t.tx.QueryRowContext(t.ctx, `SELECT body_hash FROM specs WHERE id = ?`, specID).Scan(&oldHash); err != nil {
		return cacheErr(err)
	}
	if oldHash != hash {
		fbs, err := t.feedbackWhere(`spec_id = ?`, specID)
		if err != nil {
			return err
		}
		for i := range fbs {
			old := fbs[i].Anchor
			moved := anchor.Relocate(string(body), old, t.now)
			if sameAnchor(moved, old) {
				continue
			}
			if oldHash == "" && old.AnchorStatus != tracker.AnchorStale &&
				moved.AnchorStatus == tracker.AnchorValid && moved.LineNumber == old.LineNumber {
				continue
			}
			fbs[i].Anchor = moved
			if err := t.putFeedback(&fbs[i]); err != nil {
				return err
			}
		}
	}
	_, err := t.tx.ExecContext(t.ctx, `UPDATE specs SET body_stat = ?, body_hash = ? WHERE id = ?`, stat, hash, specID)
	return cacheErr(err)
}

func sameAnchor(a, b tracker.Anchor) bool {
	a.LastVerifiedAt, b.LastVerifiedAt = time.Time{}, time.Time{}
	x, _ := tracker.MarshalLine(a)
	y, _ := tracker.MarshalLine(b)
	return bytes.Equal(x, y)
}

// setBody schedules spec id's markdown to be written at commit, and
// relocates its anchors against it now. A body the rule refuses is
// refused here, before anything changes.
func (t *Tx) setBody(specID, filePath string, body []byte) error {
	b, err := openBodies(t.r.Dir)
	if err != nil {
		return err
	}
	defer b.Close()
	if _, err := b.resolve(filePath); err != nil {
		return err
	}
	t.bodies[filePath] = body
	return t.bodyChanged(specID, body, "")
}

// flush writes the changed files and records their stats.
func (t *Tx) flush() error {
	paths := make([]string, 0, len(t.bodies))
	for p := range t.bodies {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	if len(paths) > 0 {
		b, err := openBodies(t.r.Dir)
		if err != nil {
			return err
		}
		defer b.Close()
		for _, p := range paths {
			if err := b.write(p, t.bodies[p]); err != nil {
				return err
			}
			if _, err := t.tx.ExecContext(t.ctx, `UPDATE specs SET body_stat = ? WHERE file_path = ?`, b.stat(p), p); err != nil {
				return cacheErr(err)
			}
		}
	}
	for _, f := range []string{SpecsFile, IssuesFile, FeedbackFile} {
		if len(t.lines[f]) == 0 {
			continue
		}
		if err := t.writeJSONL(f); err != nil {
			return fault.Wrap(fault.Unavailable, err, "cannot write "+f)
		}
		if err := t.recordStat(f); err != nil {
			return err
		}
	}
	return nil
}

var tableOf = map[string]string{IssuesFile: "issues", SpecsFile: "specs", FeedbackFile: "feedback"}

// writeJSONL rewrites a changed JSONL file. The file on disk is the one
// this cache last wrote (else sync rebuilt from it), so the changed lines
// are spliced into it; when it is not in canonical form, it is dumped
// whole from the cache. After a rebuild every record was put, so the lines
// put are the whole file: it is written only when it differs (a file that
// was not canonical).
func (t *Tx) writeJSONL(file string) error {
	path := filepath.Join(t.r.Dir, file)
	if t.rebuilt {
		data := t.joined(file)
		if cur, err := os.ReadFile(path); err == nil && bytes.Equal(cur, data) {
			return nil
		}
		return writeAtomic(path, data)
	}
	if src, err := os.Open(path); err == nil {
		err = writeAtomicFunc(path, func(dst *os.File) error { return spliceFile(src, t.lines[file], dst) })
		src.Close()
		if !errors.Is(err, errNotCanonical) {
			return err
		}
	}
	data, err := t.dump(file)
	if err != nil {
		return err
	}
	return writeAtomic(path, data)
}

// joined is the lines put into file during this change, in id order.
func (t *Tx) joined(file string) []byte {
	ids := make([]string, 0, len(t.lines[file]))
	size := 0
	for id, l := range t.lines[file] {
		ids = append(ids, id)
		size += len(l)
	}
	slices.Sort(ids)
	b := make([]byte, 0, size)
	for _, id := range ids {
		b = append(b, t.lines[file][id]...)
	}
	return b
}

// dump is a JSONL file's content: the records' lines in id order.
func (t *Tx) dump(file string) ([]byte, error) {
	rows, err := t.tx.QueryContext(t.ctx, `SELECT line FROM `+tableOf[file]+` ORDER BY id`)
	if err != nil {
		return nil, cacheErr(err)
	}
	defer rows.Close()
	var b bytes.Buffer
	for rows.Next() {
		var line []byte
		if err := rows.Scan(&line); err != nil {
			return nil, cacheErr(err)
		}
		b.Write(line)
	}
	return b.Bytes(), cacheErr(rows.Err())
}

func (t *Tx) recordStat(file string) error {
	_, err := t.tx.ExecContext(t.ctx, `INSERT OR REPLACE INTO meta VALUES (?, ?)`, "stat:"+file, fileStat(filepath.Join(t.r.Dir, file)))
	return cacheErr(err)
}

// removeOrphans deletes the temporary files of writers that were killed
// before their rename. Under the lock no writer is mid-write, so every
// temporary file left is an orphan.
func (r *Repo) removeOrphans() {
	for _, pattern := range []string{filepath.Join(r.Dir, ".*.tmp-*"), filepath.Join(r.Dir, SpecsDir, ".*.tmp-*")} {
		orphans, _ := filepath.Glob(pattern)
		for _, o := range orphans {
			os.Remove(o)
		}
	}
}
