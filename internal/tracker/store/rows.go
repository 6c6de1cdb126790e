package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/tracker"
)

// The put functions store a record in the cache (row, relationship rows
// and canonical line) and mark its file for rewriting.

func (t *Tx) putIssue(rec *tracker.IssueRecord) error {
	*rec = rec.Canonical()
	line, err := tracker.MarshalLine(rec)
	if err != nil {
		return fault.Wrap(fault.Internal, err, "encode issue")
	}
	i := rec.Issue
	if t.load != nil {
		t.load.putIssue(rec, line)
		t.changed(tracker.IssueRecords, i.ID, line)
		return nil // the loader took the links from the records as read
	}
	was, existed, err := t.description("issues", i.ID)
	if err != nil {
		return err
	}
	// An upsert, not a replace: the blocked flag and the tallies stay right.
	_, err = t.exec(`INSERT INTO issues (id, uuid, title, description, status, type, priority, assignee, parent_id, created_ns, updated_ns, closed_ns, line, shard, hash)
		VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)
		ON CONFLICT (id) DO UPDATE SET uuid=excluded.uuid, title=excluded.title, description=excluded.description,
			status=excluded.status, type=excluded.type, priority=excluded.priority, assignee=excluded.assignee,
			parent_id=excluded.parent_id, created_ns=excluded.created_ns, updated_ns=excluded.updated_ns,
			closed_ns=excluded.closed_ns, line=excluded.line, hash=excluded.hash`,
		i.ID, i.UUID, i.Title, i.Description, i.Status, i.Type, i.Priority, i.Assignee, i.ParentID,
		i.CreatedAt.UnixNano(), i.UpdatedAt.UnixNano(), nanos(i.ClosedAt), line, tracker.ShardOf(i.ID), lineHash(line))
	if err != nil {
		return cacheErr(err)
	}
	t.changed(tracker.IssueRecords, i.ID, line)
	if err := t.markDone(i.ID, i.Status.Done()); err != nil {
		return err
	}
	if existed && was != (tracker.Blocker{ID: i.ID, Title: i.Title, Status: string(i.Status), Type: string(i.Type)}) {
		ids, err := t.waiters(i.ID) // their blockers describe it, their flags stay (blockers.go)
		if err != nil {
			return err
		}
		for _, id := range ids {
			t.redescribe[id] = true
		}
	}
	return t.putRels(i.ID, rec.Relationships, existed)
}

func (t *Tx) putSpec(rec *tracker.SpecRecord) error {
	*rec = rec.Canonical()
	line, err := tracker.MarshalLine(rec)
	if err != nil {
		return fault.Wrap(fault.Internal, err, "encode spec")
	}
	s := rec.Spec
	if t.load != nil {
		t.load.specs = append(t.load.specs, loadSpec{rec, line})
		t.changed(tracker.SpecRecords, s.ID, line)
		return nil
	}
	was, existed, err := t.description("specs", s.ID)
	if err != nil {
		return err
	}
	// Keep the body's stat and hash across a rewrite of the row.
	_, err = t.exec(`INSERT INTO specs (id, uuid, title, description, status, type, priority, file_path, parent_id, created_ns, updated_ns, line, shard, hash)
		VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)
		ON CONFLICT (id) DO UPDATE SET uuid=excluded.uuid, title=excluded.title, description=excluded.description,
			status=excluded.status, type=excluded.type, priority=excluded.priority, file_path=excluded.file_path,
			parent_id=excluded.parent_id, created_ns=excluded.created_ns, updated_ns=excluded.updated_ns, line=excluded.line,
			hash=excluded.hash`,
		s.ID, s.UUID, s.Title, s.Description, s.Status, s.Type, s.Priority, s.FilePath, s.ParentID,
		s.CreatedAt.UnixNano(), s.UpdatedAt.UnixNano(), line, tracker.ShardOf(s.ID), lineHash(line))
	if err != nil {
		return cacheErr(err)
	}
	t.changed(tracker.SpecRecords, s.ID, line)
	if err := t.markDone(s.ID, s.Status.Done()); err != nil {
		return err
	}
	if existed && was != (tracker.Blocker{ID: s.ID, Title: s.Title, Status: string(s.Status), Type: string(s.Type)}) {
		ids, err := t.waiters(s.ID) // their blockers describe it, their flags stay (blockers.go)
		if err != nil {
			return err
		}
		for _, id := range ids {
			t.redescribe[id] = true
		}
	}
	return t.putRels(s.ID, rec.Relationships, existed)
}

// putRelSQL stores a link with whether its target is done now.
var putRelSQL = `INSERT INTO rels VALUES (?,?,?,?,?,?,?,
	coalesce((SELECT ` + issueDoneSQL + ` FROM issues WHERE id = ?2),
	         (SELECT ` + specDoneSQL + ` FROM specs WHERE id = ?2), 1))
	ON CONFLICT DO UPDATE SET from_type=excluded.from_type, to_type=excluded.to_type, created_ns=excluded.created_ns, created_by=excluded.created_by`

// putRels makes the links from an item those of its record (existed: the
// item had a row before this change). Links as they were move no blocked
// flag: most changes (a title, a status between two unfinished ones) leave
// the links alone, and then neither the links nor any flag is rewritten.
func (t *Tx) putRels(from string, rels []tracker.Relationship, existed bool) error {
	same, err := t.sameRels(from, rels)
	if err != nil {
		return err
	}
	if same {
		// A new item's flag is still to derive, unless it has no link at
		// all: no blocker of its own, no parent to inherit one from.
		if !existed {
			if parented, err := t.hasParent(from); err != nil || len(rels) > 0 || parented {
				t.seed(from)
				return err
			}
		}
		return nil
	}
	t.seed(from)
	if err := t.seedChildren(from); err != nil {
		return err
	}
	if _, err := t.exec(`DELETE FROM rels WHERE from_id = ?`, from); err != nil {
		return cacheErr(err)
	}
	// A target that is not (or not yet) in the cache counts as done: an
	// unknown item blocks nothing (see tracker.Blockers), and when it is put
	// later in a rebuild, markDone sets the flag from its status.
	for _, r := range rels {
		if _, err := t.exec(putRelSQL,
			r.From, r.To, r.Type, r.FromType, r.ToType, r.CreatedAt.UnixNano(), r.CreatedBy); err != nil {
			return cacheErr(err)
		}
	}
	return nil
}

// sameRels reports whether the links stored from an item are rels, field
// for field.
func (t *Tx) sameRels(from string, rels []tracker.Relationship) (bool, error) {
	want := make(map[[2]string]tracker.Relationship, len(rels))
	for _, r := range rels {
		if r.From != from {
			return false, nil
		}
		want[[2]string{string(r.Type), r.To}] = r
	}
	if len(want) != len(rels) {
		return false, nil
	}
	st, err := t.stmt(`SELECT to_id, type, from_type, to_type, created_ns, created_by FROM rels WHERE from_id = ?`)
	if err != nil {
		return false, cacheErr(err)
	}
	rows, err := st.QueryContext(t.ctx, from)
	if err != nil {
		return false, cacheErr(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var to, typ, fromType, toType, by string
		var created int64
		if err := rows.Scan(&to, &typ, &fromType, &toType, &created, &by); err != nil {
			return false, cacheErr(err)
		}
		r, ok := want[[2]string{typ, to}]
		if !ok || string(r.FromType) != fromType || string(r.ToType) != toType || r.CreatedAt.UnixNano() != created || r.CreatedBy != by {
			return false, nil
		}
		n++
	}
	return n == len(want), cacheErr(rows.Err())
}

// hasParent reports whether an item is the child end of a parent-child link.
func (t *Tx) hasParent(id string) (bool, error) {
	var n int
	err := t.queryRow(`SELECT count(*) FROM (SELECT 1 FROM rels WHERE to_id = ? AND type = 'parent-child' LIMIT 1)`, id).Scan(&n)
	return n > 0, cacheErr(err)
}

// description reads the title, status and type table's row for id has,
// as a blocker describes it; ok is false when there is no row.
func (t *Tx) description(table, id string) (b tracker.Blocker, ok bool, err error) {
	b.ID = id
	err = t.queryRow(`SELECT title, status, type FROM `+table+` WHERE id = ?`, id).Scan(&b.Title, &b.Status, &b.Type)
	if errors.Is(err, sql.ErrNoRows) {
		return b, false, nil
	}
	return b, err == nil, cacheErr(err)
}

// markDone records on the links to id whether id is done, which is what
// readiness asks of them.
func (t *Tx) markDone(id string, done bool) error {
	res, err := t.exec(`UPDATE rels SET to_done = ? WHERE to_id = ? AND to_done != ?`, done, id, done)
	if err != nil {
		return cacheErr(err)
	}
	if n, _ := res.RowsAffected(); n > 0 {
		return t.seedWaiters(id)
	}
	return nil
}

func (t *Tx) putFeedback(f *tracker.Feedback) error {
	*f = f.Canonical()
	line, err := tracker.MarshalLine(f)
	if err != nil {
		return fault.Wrap(fault.Internal, err, "encode feedback")
	}
	if t.load != nil {
		t.load.feedback = append(t.load.feedback, loadFeedback{f, line})
		t.changed(tracker.FeedbackRecords, f.ID, line)
		return nil
	}
	_, err = t.exec(`INSERT OR REPLACE INTO feedback VALUES (?,?,?,?,?,?,?,?,?,?)`,
		f.ID, f.IssueID, f.SpecID, f.Type, f.Status, f.Anchor.AnchorStatus, f.CreatedAt.UnixNano(), line, tracker.ShardOf(f.ID), lineHash(line))
	if err != nil {
		return cacheErr(err)
	}
	t.changed(tracker.FeedbackRecords, f.ID, line)
	return nil
}

// changed records a record's new line for the rewrite of its shard file
// at commit.
func (t *Tx) changed(k tracker.RecordKind, id string, line []byte) {
	file := tracker.ShardFile(k, id)
	if t.lines[file] == nil {
		t.lines[file] = map[string][]byte{}
	}
	t.lines[file][id] = line
}

func nanos(t *time.Time) any {
	if t == nil {
		return nil
	}
	return t.UnixNano()
}

// decodeLine reads a record from its cached line.
func decodeLine[T any](line []byte) (T, error) {
	var v T
	if err := json.Unmarshal(line, &v); err != nil {
		return v, fault.Wrap(fault.Internal, err, "corrupt cache line")
	}
	return v, nil
}

// view reads the cache: within a change (q is its transaction) or alone
// (q is the database; reads take no lock).
type view struct {
	ctx context.Context
	r   *Repo
	q   querier
}

// read returns a reader of the cache outside any change, first bringing
// the cache up to date (once per Repo: a command is short).
func (r *Repo) read(ctx context.Context) (view, error) {
	if !r.fresh {
		if err := r.refresh(ctx); err != nil {
			return view{}, err
		}
		r.fresh = true
	}
	return view{ctx: ctx, r: r, q: r.db}, nil
}

// lineOf reads one record's line; a NotFound naming kind when absent.
func lineOf[T any](v view, table, kind, id string) (T, error) {
	var line []byte
	err := v.q.QueryRowContext(v.ctx, `SELECT line FROM `+table+` WHERE id = ?`, id).Scan(&line)
	if errors.Is(err, sql.ErrNoRows) {
		var zero T
		return zero, tracker.NotFound(kind, id)
	}
	if err != nil {
		var zero T
		return zero, cacheErr(err)
	}
	return decodeLine[T](line)
}

func (v view) issue(id string) (tracker.IssueRecord, error) {
	return lineOf[tracker.IssueRecord](v, "issues", "issue", id)
}

func (v view) spec(id string) (tracker.SpecRecord, error) {
	return lineOf[tracker.SpecRecord](v, "specs", "spec", id)
}

func (v view) feedback(id string) (tracker.Feedback, error) {
	return lineOf[tracker.Feedback](v, "feedback", "feedback", id)
}

// feedbackWhere returns the feedback matching a SQL condition, oldest first.
func (v view) feedbackWhere(cond string, args ...any) ([]tracker.Feedback, error) {
	return linesWhere[tracker.Feedback](v, "feedback", cond+" ORDER BY created_ns, id", args...)
}

func linesWhere[T any](v view, table, cond string, args ...any) ([]T, error) {
	rows, err := v.q.QueryContext(v.ctx, `SELECT line FROM `+table+` WHERE `+cond, args...)
	if err != nil {
		return nil, cacheErr(err)
	}
	defer rows.Close()
	out := []T{}
	for rows.Next() {
		var line []byte
		if err := rows.Scan(&line); err != nil {
			return nil, cacheErr(err)
		}
		rec, err := decodeLine[T](line)
		if err != nil {
			return nil, err
		}
		out = append(out, rec)
	}
	return out, cacheErr(rows.Err())
}
