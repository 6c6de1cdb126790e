package merge

import (
	"bytes"

	"github.com/sudocode/sudocode/internal/tracker"
)

// spec describes one file kind to the generic merge code. Parsing,
// encoding and the canonical form are the domain's (tracker.ParseIssues,
// tracker.EncodeIssues, tracker.IssueRecord.Canonical …).
type spec[T any] struct {
	byUUID    bool                                             // match on uuid (else on id); ids may collide
	key       func(*T) string                                  // the match key: uuid or id
	id        func(*T) string                                  // the id
	parse     func([]byte) ([]T, error)                        // the file as read
	encode    func([]T) ([]byte, error)                        // the canonical file
	normalize func(T) T                                        // canonical copy sharing no memory with the input
	merge     func(b, o, t *T) T                               // b may be nil; all normalized
	rename    func(r, base *T, m, inherited map[string]string) // rewrite ids in place (renameRefs)
}

// same reports whether two normalized records encode identically.
func (s *spec[T]) same(a, b *T) bool {
	ea, err1 := tracker.MarshalLine(a)
	eb, err2 := tracker.MarshalLine(b)
	return err1 == nil && err2 == nil && bytes.Equal(ea, eb)
}

// renameLinked is the rename of a record kind that has an id, a parent and
// relationships (issues and specs): fields reaches them, norm restores the
// canonical form afterwards.
func renameLinked[T any](fields func(*T) (*string, **string, []tracker.Relationship), norm func(T) T) func(r, base *T, m, inherited map[string]string) {
	return func(r, base *T, m, inherited map[string]string) {
		var bp *string
		var br []tracker.Relationship
		if base != nil {
			_, p, rels := fields(base)
			bp, br = *p, rels
		}
		id, parent, rels := fields(r)
		renameRefs(id, parent, rels, bp, br, m, inherited)
		*r = norm(*r)
	}
}

var issueSpec = &spec[tracker.IssueRecord]{
	byUUID:    true,
	key:       func(r *tracker.IssueRecord) string { return r.UUID },
	id:        func(r *tracker.IssueRecord) string { return r.ID },
	parse:     func(data []byte) ([]tracker.IssueRecord, error) { return tracker.ParseIssues(data, nil) },
	encode:    tracker.EncodeIssues,
	normalize: tracker.IssueRecord.Canonical,
	merge:     mergeIssue,
	rename: renameLinked(func(r *tracker.IssueRecord) (*string, **string, []tracker.Relationship) {
		return &r.ID, &r.ParentID, r.Relationships
	}, tracker.IssueRecord.Canonical),
}

var specSpec = &spec[tracker.SpecRecord]{
	byUUID:    true,
	key:       func(r *tracker.SpecRecord) string { return r.UUID },
	id:        func(r *tracker.SpecRecord) string { return r.ID },
	parse:     func(data []byte) ([]tracker.SpecRecord, error) { return tracker.ParseSpecs(data, nil) },
	encode:    tracker.EncodeSpecs,
	normalize: tracker.SpecRecord.Canonical,
	merge:     mergeSpec,
	rename: renameLinked(func(r *tracker.SpecRecord) (*string, **string, []tracker.Relationship) {
		return &r.ID, &r.ParentID, r.Relationships
	}, tracker.SpecRecord.Canonical),
}

var feedbackSpec = &spec[tracker.Feedback]{
	byUUID:    false,
	key:       func(f *tracker.Feedback) string { return f.ID },
	id:        func(f *tracker.Feedback) string { return f.ID },
	parse:     func(data []byte) ([]tracker.Feedback, error) { return tracker.ParseFeedback(data, nil) },
	encode:    tracker.EncodeFeedback,
	normalize: tracker.Feedback.Canonical,
	merge:     mergeFeedback,
	rename:    func(_, _ *tracker.Feedback, _, _ map[string]string) {},
}

// renameRefs rewrites the ids renamed in m in one theirs-side record: its
// own id, its parent_id, and its relationships' from and to (rels is owned
// by the caller's normalized record and rewritten in place). A parent_id or
// relationship the record has unchanged from its base version (baseParent,
// baseRels; none when the record is not in the base) was inherited, and is
// rewritten by the inherited map instead.
func renameRefs(id *string, parent **string, rels []tracker.Relationship,
	baseParent *string, baseRels []tracker.Relationship, m, inherited map[string]string) {
	if n, ok := m[*id]; ok {
		*id = n
	}
	if *parent != nil {
		mp := m
		if baseParent != nil && *baseParent == **parent {
			mp = inherited
		}
		if n, ok := mp[**parent]; ok {
			*parent = &n
		}
	}
	old := make(map[tracker.RelKey]bool, len(baseRels))
	for _, r := range baseRels {
		old[r.Key()] = true
	}
	for i := range rels {
		mr := m
		if old[rels[i].Key()] {
			mr = inherited
		}
		if n, ok := mr[rels[i].From]; ok {
			rels[i].From = n
		}
		if n, ok := mr[rels[i].To]; ok {
			rels[i].To = n
		}
	}
}

// activitySpec merges activity shards: records are appended with random
// ids and never edited in place by the tracker, so the merge is the union
// of both sides (the generic rules: added on one side, kept; deleted on
// one side and unchanged on the other, gone). Should one record differ on
// the two sides (a comment edited by hand), the later edit wins whole,
// ours on a tie: a comment's body is not merged line by line.
var activitySpec = &spec[tracker.ActivityRecord]{
	byUUID:    false,
	key:       func(a *tracker.ActivityRecord) string { return a.ID },
	id:        func(a *tracker.ActivityRecord) string { return a.ID },
	parse:     tracker.ParseActivity,
	encode:    tracker.EncodeActivity,
	normalize: tracker.ActivityRecord.Canonical,
	merge: func(_, o, t *tracker.ActivityRecord) tracker.ActivityRecord {
		if t.Edited().After(o.Edited()) {
			return *t
		}
		return *o
	},
	rename: func(_, _ *tracker.ActivityRecord, _, _ map[string]string) {},
}
