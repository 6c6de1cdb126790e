package tracker

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
)

func sortStrings(s []string) { slices.Sort(s) }

// SortRelationships orders relationships by (to, type, from).
func SortRelationships(rs []Relationship) {
	slices.SortFunc(rs, func(a, b Relationship) int {
		if c := strings.Compare(a.To, b.To); c != 0 {
			return c
		}
		if c := strings.Compare(string(a.Type), string(b.Type)); c != 0 {
			return c
		}
		return strings.Compare(a.From, b.From)
	})
}

// Canonical puts a record's lists in their canonical form: sorted, and
// empty rather than nil.
func (r *IssueRecord) Canonical() {
	r.Tags = orEmpty(r.Tags)
	sortStrings(r.Tags)
	r.Relationships = orEmpty(r.Relationships)
	SortRelationships(r.Relationships)
}

// Canonical: see IssueRecord.Canonical.
func (r *SpecRecord) Canonical() {
	r.Tags = orEmpty(r.Tags)
	sortStrings(r.Tags)
	r.Relationships = orEmpty(r.Relationships)
	SortRelationships(r.Relationships)
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// MarshalLine encodes v as one JSONL line (with its newline), without
// HTML escaping, so that files read naturally in diffs.
func MarshalLine(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
