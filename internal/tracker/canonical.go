package tracker

import (
	"slices"
	"strings"
	"time"
)

// The canonical form of a record is what the files hold and what merges
// compare: tags normalised, relationships sorted and one per key, lists []
// rather than null, timestamps in UTC. Everything that writes or compares a
// record goes through the functions here, so that the store, the merge
// driver and import can never disagree on a file's bytes.

// NormalizeTags is the one form of a tag list, on input and in the files:
// each tag trimmed, empty ones and duplicates dropped, sorted; never nil.
// tags is not modified.
func NormalizeTags(tags []string) []string {
	out := []string{}
	seen := map[string]bool{}
	for _, t := range tags {
		t = strings.TrimSpace(t)
		if t != "" && !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	slices.Sort(out)
	return out
}

// RelKey identifies a relationship: two links of one type between the same
// ends are the same link.
type RelKey struct {
	From, To string
	Type     RelType
}

// Key is r's identity.
func (r Relationship) Key() RelKey { return RelKey{r.From, r.To, r.Type} }

// compareRels orders relationships by (to, type, from), then by the other
// fields, so that among links of one key the earliest comes first.
func compareRels(a, b Relationship) int {
	if c := strings.Compare(a.To, b.To); c != 0 {
		return c
	}
	if c := strings.Compare(string(a.Type), string(b.Type)); c != 0 {
		return c
	}
	if c := strings.Compare(a.From, b.From); c != 0 {
		return c
	}
	if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
		return c
	}
	if c := strings.Compare(a.CreatedBy, b.CreatedBy); c != 0 {
		return c
	}
	if c := strings.Compare(string(a.FromType), string(b.FromType)); c != 0 {
		return c
	}
	return strings.Compare(string(a.ToType), string(b.ToType))
}

// NormalizeRelationships copies rels with UTC times, sorted by (to, type,
// from), keeping one link per key: the earliest created. Never nil.
func NormalizeRelationships(rels []Relationship) []Relationship {
	out := make([]Relationship, len(rels))
	for i, r := range rels {
		r.CreatedAt = utc(r.CreatedAt)
		out[i] = r
	}
	slices.SortFunc(out, compareRels)
	return slices.CompactFunc(out, func(a, b Relationship) bool { return a.Key() == b.Key() })
}

// Canonical returns r in canonical form, sharing no memory with r.
func (r IssueRecord) Canonical() IssueRecord {
	r.Assignee = clone(r.Assignee)
	r.Estimate = clone(r.Estimate)
	r.ParentID = clone(r.ParentID)
	r.Tags = NormalizeTags(r.Tags)
	r.CreatedAt = utc(r.CreatedAt)
	r.UpdatedAt = utc(r.UpdatedAt)
	r.ClosedAt = utcPtr(r.ClosedAt)
	r.CloseReason = clone(r.CloseReason)
	r.Relationships = NormalizeRelationships(r.Relationships)
	return r
}

// Canonical returns r in canonical form, sharing no memory with r.
func (r SpecRecord) Canonical() SpecRecord {
	r.Description = clone(r.Description)
	r.ParentID = clone(r.ParentID)
	r.Tags = NormalizeTags(r.Tags)
	r.CreatedAt = utc(r.CreatedAt)
	r.UpdatedAt = utc(r.UpdatedAt)
	r.Relationships = NormalizeRelationships(r.Relationships)
	return r
}

// Canonical returns f in canonical form, sharing no memory with f.
func (f Feedback) Canonical() Feedback {
	f.Anchor.SectionHeading = clone(f.Anchor.SectionHeading)
	f.Anchor.SectionLevel = clone(f.Anchor.SectionLevel)
	f.Anchor.LastVerifiedAt = utc(f.Anchor.LastVerifiedAt)
	f.Anchor.OriginalLocation.SectionHeading = clone(f.Anchor.OriginalLocation.SectionHeading)
	f.Resolution = clone(f.Resolution)
	f.CreatedAt = utc(f.CreatedAt)
	f.UpdatedAt = utc(f.UpdatedAt)
	return f
}

// utc drops the zone and the monotonic reading, which JSON does not keep.
func utc(t time.Time) time.Time { return t.UTC().Round(0) }

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	return new(utc(*t))
}

func clone[V any](p *V) *V {
	if p == nil {
		return nil
	}
	return new(*p)
}
