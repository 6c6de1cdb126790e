package merge

import (
	"reflect"
	"time"

	"github.com/sudocode/sudocode/internal/tracker"
)

// field merges one field (or group of fields) of a record on both sides:
// the same on both sides, or changed on one side only (with a base), gives
// that value; otherwise the side with the later updated_at wins (oursWins
// tells which). b is nil when the record is not in the base.
func field[T, V any](b, o, t *T, oursWins bool, get func(*T) V) V {
	ov, tv := get(o), get(t)
	if reflect.DeepEqual(ov, tv) {
		return ov
	}
	if b != nil {
		bv := get(b)
		if reflect.DeepEqual(bv, ov) {
			return tv
		}
		if reflect.DeepEqual(bv, tv) {
			return ov
		}
	}
	if oursWins {
		return ov
	}
	return tv
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// mergeTags: the union of both sides, less the tags in the base that one
// side removed. base is nil when there is none.
func mergeTags(base, ours, theirs []string) []string {
	inB, inO, inT := set(base), set(ours), set(theirs)
	var out []string
	for _, side := range [][]string{ours, theirs} {
		for _, x := range side {
			if !inB[x] || (inO[x] && inT[x]) {
				out = append(out, x)
			}
		}
	}
	return tracker.NormalizeTags(out)
}

func set(xs []string) map[string]bool {
	m := make(map[string]bool, len(xs))
	for _, x := range xs {
		m[x] = true
	}
	return m
}

// mergeRels merges relationships keyed by (from, to, type) as mergeTags
// merges tags; a key on both sides keeps the earlier created_at (tracker.NormalizeRelationships).
func mergeRels(base, ours, theirs []tracker.Relationship) []tracker.Relationship {
	keys := func(rs []tracker.Relationship) map[tracker.RelKey]bool {
		m := make(map[tracker.RelKey]bool, len(rs))
		for _, r := range rs {
			m[r.Key()] = true
		}
		return m
	}
	inB, inO, inT := keys(base), keys(ours), keys(theirs)
	var out []tracker.Relationship
	for _, side := range [][]tracker.Relationship{ours, theirs} {
		for _, r := range side {
			k := r.Key()
			if !inB[k] || (inO[k] && inT[k]) {
				out = append(out, r)
			}
		}
	}
	return tracker.NormalizeRelationships(out)
}

// mergeShared sets on m what issues and specs merge alike: the later
// updated_at, and the tags and relationships merged element by element
// against the base b (nil when the record is not in the base). parts
// reaches those fields of a record.
func mergeShared[R any](m, b, o, t *R, parts func(*R) (*time.Time, *[]string, *[]tracker.Relationship)) {
	mu, mt, mr := parts(m)
	ou, ot, or := parts(o)
	tu, tt, tr := parts(t)
	var bt []string
	var br []tracker.Relationship
	if b != nil {
		_, pt, pr := parts(b)
		bt, br = *pt, *pr
	}
	*mu = later(*ou, *tu)
	*mt = mergeTags(bt, *ot, *tt)
	*mr = mergeRels(br, *or, *tr)
}

func issueParts(r *tracker.IssueRecord) (*time.Time, *[]string, *[]tracker.Relationship) {
	return &r.UpdatedAt, &r.Tags, &r.Relationships
}

func specParts(r *tracker.SpecRecord) (*time.Time, *[]string, *[]tracker.Relationship) {
	return &r.UpdatedAt, &r.Tags, &r.Relationships
}

type issueStatus struct {
	Status      tracker.IssueStatus
	ClosedAt    *time.Time
	CloseReason *string
}

// mergeIssue merges an issue on both sides; o and t share its uuid.
func mergeIssue(b, o, t *tracker.IssueRecord) tracker.IssueRecord {
	type R = tracker.IssueRecord
	ow := !t.UpdatedAt.After(o.UpdatedAt)
	m := *o // id and uuid: ours
	m.Title = field(b, o, t, ow, func(r *R) string { return r.Title })
	m.Description = field(b, o, t, ow, func(r *R) string { return r.Description })
	st := field(b, o, t, ow, func(r *R) issueStatus { return issueStatus{r.Status, r.ClosedAt, r.CloseReason} })
	m.Status, m.ClosedAt, m.CloseReason = st.Status, st.ClosedAt, st.CloseReason
	m.Type = field(b, o, t, ow, func(r *R) tracker.IssueType { return r.Type })
	m.Priority = field(b, o, t, ow, func(r *R) int { return r.Priority })
	m.Assignee = field(b, o, t, ow, func(r *R) *string { return r.Assignee })
	m.Estimate = field(b, o, t, ow, func(r *R) *int { return r.Estimate })
	m.ParentID = field(b, o, t, ow, func(r *R) *string { return r.ParentID })
	m.CreatedAt = field(b, o, t, ow, func(r *R) time.Time { return r.CreatedAt })
	m.CreatedBy = field(b, o, t, ow, func(r *R) string { return r.CreatedBy })
	mergeShared(&m, b, o, t, issueParts)
	return m
}

// mergeSpec merges a spec on both sides; o and t share its uuid.
func mergeSpec(b, o, t *tracker.SpecRecord) tracker.SpecRecord {
	type R = tracker.SpecRecord
	ow := !t.UpdatedAt.After(o.UpdatedAt)
	m := *o
	m.Title = field(b, o, t, ow, func(r *R) string { return r.Title })
	m.Description = field(b, o, t, ow, func(r *R) *string { return r.Description })
	m.Type = field(b, o, t, ow, func(r *R) tracker.SpecType { return r.Type })
	m.Status = field(b, o, t, ow, func(r *R) tracker.SpecStatus { return r.Status })
	m.Priority = field(b, o, t, ow, func(r *R) int { return r.Priority })
	m.FilePath = field(b, o, t, ow, func(r *R) string { return r.FilePath })
	m.ParentID = field(b, o, t, ow, func(r *R) *string { return r.ParentID })
	m.CreatedAt = field(b, o, t, ow, func(r *R) time.Time { return r.CreatedAt })
	m.CreatedBy = field(b, o, t, ow, func(r *R) string { return r.CreatedBy })
	mergeShared(&m, b, o, t, specParts)
	return m
}

type feedbackStatus struct {
	Status     tracker.FeedbackStatus
	Resolution *string
}

// mergeFeedback merges a feedback on both sides; o and t share its id.
func mergeFeedback(b, o, t *tracker.Feedback) tracker.Feedback {
	type R = tracker.Feedback
	ow := !t.UpdatedAt.After(o.UpdatedAt)
	m := *o
	m.IssueID = field(b, o, t, ow, func(r *R) string { return r.IssueID })
	m.SpecID = field(b, o, t, ow, func(r *R) string { return r.SpecID })
	m.Type = field(b, o, t, ow, func(r *R) tracker.FeedbackType { return r.Type })
	st := field(b, o, t, ow, func(r *R) feedbackStatus { return feedbackStatus{r.Status, r.Resolution} })
	m.Status, m.Resolution = st.Status, st.Resolution
	m.Content = field(b, o, t, ow, func(r *R) string { return r.Content })
	m.Agent = field(b, o, t, ow, func(r *R) string { return r.Agent })
	m.Anchor = field(b, o, t, ow, func(r *R) tracker.Anchor { return r.Anchor })
	m.CreatedAt = field(b, o, t, ow, func(r *R) time.Time { return r.CreatedAt })
	m.UpdatedAt = later(o.UpdatedAt, t.UpdatedAt)
	return m
}
