package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"syscall"
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
	tx            *sql.Tx
	now           time.Time
	rs            *records                     // the shard files
	lock          *lock                        // held for the change
	lines         map[string]map[string][]byte // shard file → id → its record's new line
	rebuilt       bool                         // the files were read whole: rewrite them whole
	load          *loader                      // rows are being put from the files: loaded at the end (load.go)
	seeds         map[string]bool              // items whose blocked flag may have moved (blocked.go)
	redescribe    map[string]bool              // items whose blockers' descriptions changed, not their flags (blockers.go)
	stmts         map[string]*sql.Stmt         // prepared once per change: a rebuild runs each 100,000s of times
	bodies        map[string][]byte            // spec file_path → new markdown
	stats         *shardStats                  // the shard files as the cache knows them: scanned by sync, restamped as written
	stamped       map[int]bool                 // the indexes in stats restamped by this change (recordStat)
	readSums      map[string]fileSum           // a rebuild's shard files as read, to skip those it leaves as they are
	activity      []tracker.ActivityRecord     // comments and history to append at the end (activity.go)
	activityLines map[string][]byte            // their lines by activity shard, once prepared
}

// Update runs fn as one change. fn nil only brings the cache up to date.
func (r *Repo) Update(ctx context.Context, fn func(*Tx) error) error {
	l, err := lockFile(filepath.Join(r.Dir, LockFile))
	if err != nil {
		return lockErr(err)
	}
	defer l.unlock()
	return r.updateLocked(ctx, l, fn)
}

// updateLocked is Update once the lock l is held. When the record files
// cannot be read and a merge conflict left by git explains it, the
// conflict is repaired (conflicts.go) and the change runs again.
func (r *Repo) updateLocked(ctx context.Context, l *lock, fn func(*Tx) error) error {
	err := r.updateOnce(ctx, l, fn)
	var fe filesError
	if !errors.As(err, &fe) {
		return err
	}
	repaired, rerr := r.repairConflicts(ctx)
	if rerr != nil {
		return rerr
	}
	if len(repaired) == 0 {
		return fe.error
	}
	err = r.updateOnce(ctx, l, fn)
	if errors.As(err, &fe) {
		return fe.error
	}
	return err
}

// filesError is an error reading the record files, before any change.
type filesError struct{ error }

// updateOnce is one run of updateLocked.
func (r *Repo) updateOnce(ctx context.Context, l *lock, fn func(*Tx) error) error {
	if l.marked() {
		r.removeOrphans()
	}
	if r.startDirect(ctx) {
		defer r.endDirect(ctx) // after the transaction's end, deferred below
	}
	sqlTx, err := r.db.BeginTx(ctx, nil)
	if err != nil {
		return cacheErr(err)
	}
	defer sqlTx.Rollback()
	rs, err := openRecords(r.Dir)
	if err != nil {
		return err
	}
	defer rs.Close()
	if err := migrateLayout(rs); err != nil {
		return filesError{err}
	}
	t := &Tx{view: view{ctx: ctx, r: r, q: sqlTx}, tx: sqlTx, rs: rs, lock: l, now: r.now(), lines: map[string]map[string][]byte{}, bodies: map[string][]byte{}, seeds: map[string]bool{}, redescribe: map[string]bool{}, stmts: map[string]*sql.Stmt{}}
	if err := t.sync(); err != nil {
		return filesError{err}
	}
	if fn != nil {
		if err := fn(t); err != nil {
			return err
		}
	}
	if err := t.settle(); err != nil {
		return err
	}
	if err := t.prepareActivity(); err != nil {
		return err
	}
	if err := t.flush(); err != nil {
		return err
	}
	if err := t.appendActivity(); err != nil {
		return err
	}
	if err := t.saveStats(); err != nil {
		return err
	}
	// Every change moves the generation, which memos of derived data key on.
	if _, err := t.exec(`INSERT INTO meta VALUES ('gen', '1') ON CONFLICT (key) DO UPDATE SET value = value + 1`); err != nil {
		return cacheErr(err)
	}
	if err := sqlTx.Commit(); err != nil {
		return cacheErr(err)
	}
	r.fresh, r.built = true, true
	if r.kept != nil && !t.rebuilt {
		var fresh []string
		for q := range t.stmts {
			if _, ok := r.kept[q]; !ok {
				fresh = append(fresh, q)
			}
		}
		r.keepStatements(ctx, fresh)
	}
	return nil
}

// sync brings the cache up to date with shard files changed behind it
// (rebuilding it whole when that is faster or needed), then relocates the
// anchors on every spec whose markdown changed.
func (t *Tx) sync() error {
	files, whole, now, err := t.r.staleFiles(t.ctx, t.tx)
	if err != nil {
		return err
	}
	t.stats = now
	if !whole && len(files) > 0 {
		// After a pull or a checkout, usually only some records changed.
		done, err := t.resync(files)
		if err != nil {
			return err
		}
		whole = !done
	}
	if whole {
		// The files read whole: a cache built from nothing (the first
		// command in a new clone), another version's, or a big pull. The
		// time to make sure git merges those files with the driver.
		if msg := EnsureMergeDriver(t.ctx, t.r.Root()); msg != "" {
			t.r.notify(msg)
		}
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
	issues, specs, feedback, sums, err := readFiles(t.r.Dir)
	if err != nil {
		return err
	}
	// A bigger page cache for the bulk load, back to the default after.
	if _, err := t.tx.ExecContext(t.ctx, `PRAGMA cache_size = -131072;`+dropAll+tablesSchema); err != nil {
		return cacheErr(err)
	}
	defer t.tx.ExecContext(t.ctx, `PRAGMA cache_size = -2000`)
	t.load = newLoader(t, issues, specs, len(feedback))
	t.readSums = sums
	t.r.rebuilds++
	defer func() {
		t.load.finishWriter() // after an error too: the transaction must be the caller's again
		t.load = nil
	}()
	clear(t.seeds)
	clear(t.redescribe)
	clear(t.lines) // every record is put again: the lines become the files' (see writeAll)
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
	return nil
}

// exec runs a statement of the change, prepared on its first use (or, in
// a Repo that keeps statements, by an earlier change).
func (t *Tx) exec(query string, args ...any) (sql.Result, error) {
	st, err := t.stmt(query)
	if err != nil {
		return nil, err
	}
	return st.ExecContext(t.ctx, args...)
}

// queryRow is exec's QueryRow.
func (t *Tx) queryRow(query string, args ...any) *sql.Row {
	st, err := t.stmt(query)
	if err != nil {
		return t.tx.QueryRowContext(t.ctx, query, args...) // reports the error
	}
	return st.QueryRowContext(t.ctx, args...)
}

func (t *Tx) stmt(query string) (*sql.Stmt, error) {
	if st, ok := t.stmts[query]; ok {
		return st, nil
	}
	var st *sql.Stmt
	if kept, ok := t.r.kept[query]; ok {
		st = t.tx.StmtContext(t.ctx, kept) // the connection's, reused
	} else {
		var err error
		if st, err = t.tx.PrepareContext(t.ctx, query); err != nil {
			return nil, err
		}
	}
	t.stmts[query] = st
	return st, nil
}

// KeepStatements makes r keep the statements its changes prepare, for the
// changes after: a server's Repo makes many changes, each of which would
// otherwise prepare its statements again (compiling SQL costs more than
// running it).
func (r *Repo) KeepStatements() {
	if r.kept == nil {
		r.kept = map[string]*sql.Stmt{}
	}
}

// keepStatements prepares on the connection, outside any transaction,
// the statements the last change prepared for itself.
func (r *Repo) keepStatements(ctx context.Context, used []string) {
	for _, q := range used {
		if st, err := r.db.PrepareContext(ctx, q); err == nil {
			r.kept[q] = st
		}
	}
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

// flush writes the changed files and records their stats, with the
// writing mark set meanwhile.
func (t *Tx) flush() error {
	if len(t.bodies) == 0 && len(t.lines) == 0 && !t.rebuilt {
		return nil
	}
	if err := t.lock.mark(true); err != nil {
		return fault.Wrap(fault.Unavailable, err, "cannot write the tracker's lock file")
	}
	if err := t.flushFiles(); err != nil {
		return err // the mark stays: the next change cleans up
	}
	if err := t.lock.mark(false); err != nil {
		return fault.Wrap(fault.Unavailable, err, "cannot write the tracker's lock file")
	}
	return nil
}

func (t *Tx) flushFiles() error {
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
	if t.rebuilt {
		return t.writeAll()
	}
	files := make([]string, 0, len(t.lines))
	for f := range t.lines {
		files = append(files, f)
	}
	slices.Sort(files)
	for _, f := range files {
		if err := t.writeShard(f); err != nil {
			return err
		}
		if err := t.recordStat(f); err != nil {
			return err
		}
	}
	return nil
}

// writeShard rewrites a changed shard file. The file on disk is the one
// this cache last wrote (else sync brought the cache up to date with it),
// so the changed lines are spliced into it; when it is not in canonical
// form, it is written whole from the cache.
func (t *Tx) writeShard(file string) error {
	src, err := t.rs.root.Open(file)
	if errors.Is(err, fs.ErrNotExist) {
		return t.rs.writeBytes(file, t.joined(file))
	}
	if err == nil {
		err = t.rs.write(file, func(dst *os.File) error { return spliceFile(src, t.lines[file], dst) })
		src.Close()
		if !errors.Is(err, errNotCanonical) {
			return err
		}
	}
	data, err := t.dump(file)
	if err != nil {
		return err
	}
	return t.rs.writeBytes(file, data)
}

// writeAll writes every shard file after a rebuild, which put every
// record: the lines put are the whole files, so only a file that differs
// (one not in canonical form, or holding a record of another shard) is
// written, and a file left with no record is emptied. Records moving
// between files are written to their new file before they leave the old
// one (move.go). The stats of all of them are taken again.
func (t *Tx) writeAll() error {
	present, err := t.rs.stats()
	if err != nil {
		return err
	}
	for f := range present {
		if _, ok := t.lines[f]; !ok {
			t.lines[f] = map[string][]byte{} // no record left: emptied (see tracker.ShardFile)
		}
	}
	var left []string // files written with lines leaving them
	for _, f := range slices.Sorted(maps.Keys(t.lines)) {
		if sum, ok := t.readSums[f]; ok && sum == t.linesSum(f) {
			continue // already canonical: most files are
		}
		data := t.joined(f)
		cur, err := t.rs.read(f)
		if err != nil {
			return err
		}
		if bytes.Equal(cur, data) {
			continue
		}
		kept := withLeaving(cur, data)
		if !bytes.Equal(kept, data) {
			left = append(left, f)
		}
		if bytes.Equal(kept, cur) {
			continue
		}
		if err := t.rs.writeBytes(f, kept); err != nil {
			return err
		}
	}
	for _, f := range left {
		if err := t.rs.writeBytes(f, t.joined(f)); err != nil {
			return err
		}
	}
	t.stats = new(shardStats) // all of them, saved whole (saveStats)
	return t.rs.scan(t.stats)
}

// joined is the lines put into file during this change, in id order.
func (t *Tx) joined(file string) []byte {
	ids := slices.Sorted(maps.Keys(t.lines[file]))
	size := 0
	for _, id := range ids {
		size += len(t.lines[file][id])
	}
	b := make([]byte, 0, size)
	for _, id := range ids {
		b = append(b, t.lines[file][id]...)
	}
	return b
}

// linesSum is sumOf(t.joined(file)), without joining.
func (t *Tx) linesSum(file string) fileSum {
	var s fileSum
	for _, id := range slices.Sorted(maps.Keys(t.lines[file])) {
		s.add(t.lines[file][id])
	}
	return s
}

var tableOf = map[tracker.RecordKind]string{tracker.IssueRecords: "issues", tracker.SpecRecords: "specs", tracker.FeedbackRecords: "feedback"}

// dump is a shard file's content: its records' lines in id order.
func (t *Tx) dump(file string) ([]byte, error) {
	k, _ := tracker.KindOfFile(file)
	return t.dumpWhere(k, `shard = ?`, strings.TrimSuffix(path.Base(file), ".jsonl"))
}

// dumpKind is every record of kind k, as one JSONL text in id order.
func (t *Tx) dumpKind(k tracker.RecordKind) ([]byte, error) {
	return t.dumpWhere(k, `1`)
}

func (t *Tx) dumpWhere(k tracker.RecordKind, cond string, args ...any) ([]byte, error) {
	rows, err := t.tx.QueryContext(t.ctx, `SELECT line FROM `+tableOf[k]+` WHERE `+cond+` ORDER BY id`, args...)
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

// recordStat takes shard file's stamp again, after the change wrote it or
// brought its lines into the cache; the change saves the stamps at its end
// (saveStats).
func (t *Tx) recordStat(file string) error {
	i, ok := indexOfShard(file)
	if !ok {
		return nil
	}
	st, err := t.rs.stamp(file)
	if err != nil {
		return fault.Wrap(fault.Unavailable, err, "cannot read "+file)
	}
	t.stats[i] = st
	if t.stamped == nil {
		t.stamped = map[int]bool{}
	}
	t.stamped[i] = true
	return nil
}

// saveStats stores the stamps recordStat took (every stamp after a
// rebuild, which emptied shard_stats) and their new digest.
func (t *Tx) saveStats() error {
	if t.stats == nil || !t.rebuilt && len(t.stamped) == 0 {
		return nil
	}
	if t.rebuilt {
		paths := t.stats.paths()
		err := insertRows(t, `INSERT INTO shard_stats (file, stat) VALUES `, 2, len(paths), func(n int, a []any) []any {
			i, _ := indexOfShard(paths[n])
			return append(a, paths[n], t.stats.stat(i))
		})
		if err != nil {
			return err
		}
	} else {
		for i := range t.stamped {
			var err error
			if t.stats[i].present {
				_, err = t.exec(`INSERT OR REPLACE INTO shard_stats VALUES (?, ?)`, shardPath(i), t.stats.stat(i))
			} else {
				_, err = t.exec(`DELETE FROM shard_stats WHERE file = ?`, shardPath(i))
			}
			if err != nil {
				return cacheErr(err)
			}
		}
	}
	_, err := t.exec(`INSERT OR REPLACE INTO meta VALUES (?, ?)`, digestKey, t.stats.digest())
	return cacheErr(err)
}

// The lock file holds writingMark while a change writes files. A writer
// killed midway leaves the mark, and the next change then removes the
// temporary files it left: a scan of the directories (one of them holds
// every spec body) that each change would otherwise pay for.
const writingMark = "writing\n"

// lockErr is the error of a lock that cannot be taken.
func lockErr(err error) error {
	if errors.Is(err, syscall.ELOOP) {
		return fault.New(fault.Invalid, "the tracker's lock file %s is a symbolic link", LockFile).
			WithHint("remove it: the tracker makes its lock file itself, and never commits it")
	}
	return fault.Wrap(fault.Unavailable, err, "cannot lock the tracker")
}

// removeOrphans deletes the temporary files of writers that were killed
// before their rename. Under the lock no writer is mid-write, so every
// temporary file left is an orphan.
func (r *Repo) removeOrphans() {
	patterns := []string{filepath.Join(r.Dir, ".*.tmp-*"), filepath.Join(r.Dir, SpecsDir, ".*.tmp-*")}
	for _, k := range tracker.RecordKinds {
		patterns = append(patterns, filepath.Join(r.Dir, tracker.RecordsDir, k.Dir(), ".*.tmp-*"))
	}
	for _, pattern := range patterns {
		orphans, _ := filepath.Glob(pattern)
		for _, o := range orphans {
			os.Remove(o)
		}
	}
}
