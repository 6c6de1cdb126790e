package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/tracker"
)

// Link adds a relationship from → to. Both must exist; an item cannot link
// to itself; a blocking link (blocks, depends-on) or a parent-child link
// that would close a cycle is refused. Linking twice succeeds once.
func (r *Repo) Link(ctx context.Context, from, to, typ string) (tracker.LinkResult, error) {
	rt := tracker.DefaultRelType
	if typ != "" {
		var err error
		if rt, err = tracker.ParseEnum("relationship type", typ, tracker.RelTypes); err != nil {
			return tracker.LinkResult{}, err
		}
	}
	err := r.Update(ctx, func(t *Tx) error {
		_, err := t.link(from, to, rt)
		return err
	})
	if err != nil {
		return tracker.LinkResult{}, err
	}
	return tracker.LinkResult{From: from, To: to, Type: rt, Success: true}, nil
}

// Unlink removes a relationship; a NotFound when there is none.
func (r *Repo) Unlink(ctx context.Context, from, to, typ string) (tracker.LinkResult, error) {
	rt, err := tracker.ParseEnum("relationship type", typ, tracker.RelTypes)
	if err != nil {
		return tracker.LinkResult{}, err
	}
	err = r.Update(ctx, func(t *Tx) error {
		return t.editRels(from, func(rels []tracker.Relationship) ([]tracker.Relationship, error) {
			for i, rel := range rels {
				if rel.To == to && rel.Type == rt {
					if err := t.noteLink(rel, false); err != nil {
						return nil, err
					}
					return append(rels[:i], rels[i+1:]...), nil
				}
			}
			return nil, fault.New(fault.NotFound, "no %s link from %s to %s", rt, from, to)
		})
	})
	if err != nil {
		return tracker.LinkResult{}, err
	}
	return tracker.LinkResult{From: from, To: to, Type: rt, Success: true}, nil
}

// link adds the relationship inside a change; added is false when it existed.
func (t *Tx) link(from, to string, rt tracker.RelType) (added bool, err error) {
	if from == to {
		return false, fault.New(fault.Invalid, "cannot link %s to itself", from)
	}
	fromKind, err := t.kindOf(from)
	if err != nil {
		return false, err
	}
	toKind, err := t.kindOf(to)
	if err != nil {
		return false, err
	}
	if err := t.refuseCycle(from, to, rt); err != nil {
		return false, err
	}
	err = t.editRels(from, func(rels []tracker.Relationship) ([]tracker.Relationship, error) {
		for _, rel := range rels {
			if rel.To == to && rel.Type == rt {
				return nil, nil // already there
			}
		}
		added = true
		rel := tracker.Relationship{From: from, FromType: fromKind, To: to, ToType: toKind, Type: rt,
			CreatedAt: t.now, CreatedBy: t.r.Actor}
		return append(rels, rel), t.noteLink(rel, true)
	})
	return added, err
}

// editRels rewrites the outgoing relationships of an issue or a spec;
// edit returning nil rels leaves them as they are.
func (t *Tx) editRels(id string, edit func([]tracker.Relationship) ([]tracker.Relationship, error)) error {
	kind, err := t.kindOf(id)
	if err != nil {
		return err
	}
	if kind == tracker.KindIssue {
		return editRelsOf(id, t.issue, t.putIssue, func(r *tracker.IssueRecord) *[]tracker.Relationship { return &r.Relationships }, edit)
	}
	return editRelsOf(id, t.spec, t.putSpec, func(r *tracker.SpecRecord) *[]tracker.Relationship { return &r.Relationships }, edit)
}

// editRelsOf is editRels on a record of one kind: read it, edit its
// relationships (rels reaches them), store it.
func editRelsOf[R any](id string, get func(string) (R, error), put func(*R) error,
	rels func(*R) *[]tracker.Relationship, edit func([]tracker.Relationship) ([]tracker.Relationship, error)) error {
	rec, err := get(id)
	if err != nil {
		return err
	}
	edited, err := edit(*rels(&rec))
	if err != nil || edited == nil {
		return err
	}
	*rels(&rec) = edited
	return put(&rec)
}

// refuseCycle refuses from→to when to already reaches from through links
// of the same family (blocking links, or parent-child).
func (t *Tx) refuseCycle(from, to string, rt tracker.RelType) error {
	var next func(string) ([]string, error)
	switch {
	case rt.Blocking():
		next = t.BlockTargets
	case rt == tracker.RelParentChild:
		next = t.children
	default:
		return nil
	}
	cycle, err := tracker.Reaches(to, from, next)
	if err != nil || !cycle {
		return err
	}
	return fault.New(fault.Conflict, "linking %s %s %s would make a cycle: %s already reaches %s", from, rt, to, to, from).
		WithHint("remove the opposite link first, or use a non-blocking type such as related")
}

// kindOf tells whether id is an issue or a spec; a NotFound otherwise.
func (v view) kindOf(id string) (tracker.Kind, error) {
	var one int
	err := v.q.QueryRowContext(v.ctx, `SELECT 1 FROM issues WHERE id = ?`, id).Scan(&one)
	if err == nil {
		return tracker.KindIssue, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return "", cacheErr(err)
	}
	err = v.q.QueryRowContext(v.ctx, `SELECT 1 FROM specs WHERE id = ?`, id).Scan(&one)
	if err == nil {
		return tracker.KindSpec, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return "", cacheErr(err)
	}
	return "", fault.New(fault.NotFound, "%s not found: no issue or spec has this id", id).
		WithHint("check the id with list_issues or list_specs (CLI: `sudocode issue list`, `sudocode spec list`)")
}

// incoming returns the relationships pointing at id.
func (v view) incoming(id string) ([]tracker.Relationship, error) {
	rows, err := v.q.QueryContext(v.ctx, `SELECT from_id, from_type, to_id, to_type, type, created_ns, created_by
		FROM rels WHERE to_id = ? ORDER BY from_id, type`, id)
	if err != nil {
		return nil, cacheErr(err)
	}
	defer rows.Close()
	out := []tracker.Relationship{}
	for rows.Next() {
		var r tracker.Relationship
		var ns int64
		if err := rows.Scan(&r.From, &r.FromType, &r.To, &r.ToType, &r.Type, &ns, &r.CreatedBy); err != nil {
			return nil, cacheErr(err)
		}
		r.CreatedAt = time.Unix(0, ns).UTC()
		out = append(out, r)
	}
	return out, cacheErr(rows.Err())
}

func (v view) ids(query string, args ...any) ([]string, error) {
	rows, err := v.q.QueryContext(v.ctx, query, args...)
	if err != nil {
		return nil, cacheErr(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, cacheErr(err)
		}
		out = append(out, id)
	}
	return out, cacheErr(rows.Err())
}

// BlockTargets implements tracker.BlockGraph.
func (v view) BlockTargets(id string) ([]string, error) {
	return v.ids(`SELECT to_id FROM rels WHERE from_id = ? AND `+blockingSQL+` ORDER BY to_id`, id)
}

// Parents implements tracker.BlockGraph.
func (v view) Parents(id string) ([]string, error) {
	return v.ids(`SELECT from_id FROM rels WHERE to_id = ? AND type = 'parent-child' ORDER BY from_id`, id)
}

func (v view) children(id string) ([]string, error) {
	return v.ids(`SELECT to_id FROM rels WHERE from_id = ? AND type = 'parent-child'`, id)
}

// Unfinished implements tracker.BlockGraph.
func (v view) Unfinished(id string) (tracker.Blocker, bool, error) {
	b := tracker.Blocker{ID: id}
	err := v.q.QueryRowContext(v.ctx, `SELECT title, status, type FROM issues WHERE id = ? AND NOT `+issueDoneSQL+`
		UNION ALL SELECT title, status, type FROM specs WHERE id = ? AND NOT `+specDoneSQL, id, id).
		Scan(&b.Title, &b.Status, &b.Type)
	if errors.Is(err, sql.ErrNoRows) {
		return b, false, nil
	}
	return b, err == nil, cacheErr(err)
}
