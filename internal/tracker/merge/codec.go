package merge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/sudocode/sudocode/internal/tracker"
)

// spec describes one file kind to the generic parse, encode and merge code.
type spec[T any] struct {
	kind      Kind
	byUUID    bool                                             // match on uuid (else on id); ids may collide
	key       func(*T) string                                  // the match key: uuid or id
	id        func(*T) string                                  // the id
	check     func(*T) error                                   // required fields
	normalize func(T) T                                        // canonical copy sharing no memory with the input
	merge     func(b, o, t *T) T                               // b may be nil; all normalized
	rename    func(r, base *T, m, inherited map[string]string) // rewrite ids in place (renameRefs)
}

// same reports whether two normalized records encode identically.
func (s *spec[T]) same(a, b *T) bool {
	ea, err1 := encodeOne(a)
	eb, err2 := encodeOne(b)
	return err1 == nil && err2 == nil && bytes.Equal(ea, eb)
}

var bom = []byte("\xef\xbb\xbf")

// parse reads a JSONL file: one JSON object per line, blank lines skipped.
// Each line must hold exactly one object with only the kind's keys, an id
// (and a uuid where the kind has one); ids and uuids must be unique.
func parse[T any](s *spec[T], data []byte) ([]T, error) {
	data = bytes.TrimPrefix(data, bom)
	var out []T
	idLine := map[string]int{}
	keyLine := map[string]int{}
	for i, line := range bytes.Split(data, []byte{'\n'}) {
		n := i + 1
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		fail := func(format string, a ...any) error {
			return fmt.Errorf("%s line %d: %s", s.kind, n, fmt.Sprintf(format, a...))
		}
		if line[0] != '{' {
			return nil, fail("not a JSON object")
		}
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		var r T
		if err := dec.Decode(&r); err != nil {
			return nil, fail("%v", err)
		}
		if _, err := dec.Token(); !errors.Is(err, io.EOF) {
			return nil, fail("unexpected data after the JSON object")
		}
		if err := s.check(&r); err != nil {
			return nil, fail("%v", err)
		}
		id := s.id(&r)
		if p, ok := idLine[id]; ok {
			return nil, fail("duplicate id %q (also on line %d)", id, p)
		}
		idLine[id] = n
		if s.byUUID {
			k := s.key(&r)
			if p, ok := keyLine[k]; ok {
				return nil, fail("duplicate uuid %q (also on line %d)", k, p)
			}
			keyLine[k] = n
		}
		out = append(out, r)
	}
	return out, nil
}

// encodeOne is one canonical line, newline included.
func encodeOne(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// encode writes recs canonically: each normalized, sorted by id (then match
// key, then content, so the output never depends on the input order).
func encode[T any](s *spec[T], recs []T) ([]byte, error) {
	type line struct {
		id, key string
		b       []byte
	}
	lines := make([]line, len(recs))
	for i := range recs {
		r := s.normalize(recs[i])
		b, err := encodeOne(&r)
		if err != nil {
			return nil, fmt.Errorf("%s: encoding %q: %w", s.kind, s.id(&r), err)
		}
		lines[i] = line{s.id(&r), s.key(&r), b}
	}
	sort.Slice(lines, func(i, j int) bool {
		a, b := lines[i], lines[j]
		if a.id != b.id {
			return a.id < b.id
		}
		if a.key != b.key {
			return a.key < b.key
		}
		return bytes.Compare(a.b, b.b) < 0
	})
	var out bytes.Buffer
	for _, l := range lines {
		out.Write(l.b)
	}
	return out.Bytes(), nil
}

func mustEncode[T any](s *spec[T], recs []T) []byte {
	b, err := encode(s, recs)
	if err != nil {
		// Only a time outside the years 0–9999 fails to encode; Parse
		// never produces one.
		panic("merge: " + err.Error())
	}
	return b
}

// ParseIssues reads an issues.jsonl file. A malformed line is an error
// naming its number ("issues.jsonl line 7: ..."); blank lines are skipped.
// Unknown keys, a missing id or uuid, and duplicate ids or uuids are errors:
// rewriting such a file would lose data. The records are returned as read.
func ParseIssues(data []byte) ([]tracker.IssueRecord, error) { return parse(issueSpec, data) }

// ParseSpecs reads a specs.jsonl file, as ParseIssues.
func ParseSpecs(data []byte) ([]tracker.SpecRecord, error) { return parse(specSpec, data) }

// ParseFeedback reads a feedback.jsonl file, as ParseIssues; feedback has no
// uuid, so only ids must be present and unique.
func ParseFeedback(data []byte) ([]tracker.Feedback, error) { return parse(feedbackSpec, data) }

// EncodeIssues writes records canonically: sorted by id, one json.Marshal'ed
// record per line (so keys in the fixed order of the struct fields), tags
// sorted and deduplicated, relationships sorted by (to, type, from) and
// deduplicated on (from, to, type) keeping the earliest created_at, lists
// as [] never null, timestamps in UTC, no HTML escaping, and a trailing
// newline (no records: an empty file). It does not modify recs.
// It panics only on a timestamp outside the years 0–9999, which JSON
// cannot hold.
func EncodeIssues(recs []tracker.IssueRecord) []byte { return mustEncode(issueSpec, recs) }

// EncodeSpecs writes spec records canonically, as EncodeIssues.
func EncodeSpecs(recs []tracker.SpecRecord) []byte { return mustEncode(specSpec, recs) }

// EncodeFeedback writes feedback canonically, as EncodeIssues.
func EncodeFeedback(recs []tracker.Feedback) []byte { return mustEncode(feedbackSpec, recs) }

// Normalization helpers.

func utc(t time.Time) time.Time { return t.UTC().Round(0) }

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := utc(*t)
	return &u
}

func clone[V any](p *V) *V {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// normTags copies tags, sorted and without duplicates; never nil.
func normTags(tags []string) []string {
	out := append([]string{}, tags...)
	sort.Strings(out)
	j := 0
	for i, t := range out {
		if i == 0 || t != out[j-1] {
			out[j] = t
			j++
		}
	}
	return out[:j]
}

type relKey struct {
	from, to string
	typ      tracker.RelType
}

func keyOf(r tracker.Relationship) relKey { return relKey{r.From, r.To, r.Type} }

// relLess orders relationships by (to, type, from), then the rest, so that
// among duplicates of one key the earliest created_at comes first.
func relLess(a, b tracker.Relationship) bool {
	switch {
	case a.To != b.To:
		return a.To < b.To
	case a.Type != b.Type:
		return a.Type < b.Type
	case a.From != b.From:
		return a.From < b.From
	case !a.CreatedAt.Equal(b.CreatedAt):
		return a.CreatedAt.Before(b.CreatedAt)
	case a.CreatedBy != b.CreatedBy:
		return a.CreatedBy < b.CreatedBy
	case a.FromType != b.FromType:
		return a.FromType < b.FromType
	default:
		return a.ToType < b.ToType
	}
}

// normRels copies rels with UTC times, sorted by relLess, keeping one per
// (from, to, type): the one with the earliest created_at; never nil.
func normRels(rels []tracker.Relationship) []tracker.Relationship {
	out := make([]tracker.Relationship, len(rels))
	for i, r := range rels {
		r.CreatedAt = utc(r.CreatedAt)
		out[i] = r
	}
	sort.Slice(out, func(i, j int) bool { return relLess(out[i], out[j]) })
	j := 0
	for i, r := range out {
		if i == 0 || keyOf(r) != keyOf(out[j-1]) {
			out[j] = r
			j++
		}
	}
	return out[:j]
}

func normIssue(r tracker.IssueRecord) tracker.IssueRecord {
	r.Assignee = clone(r.Assignee)
	r.Estimate = clone(r.Estimate)
	r.ParentID = clone(r.ParentID)
	r.Tags = normTags(r.Tags)
	r.CreatedAt = utc(r.CreatedAt)
	r.UpdatedAt = utc(r.UpdatedAt)
	r.ClosedAt = utcPtr(r.ClosedAt)
	r.CloseReason = clone(r.CloseReason)
	r.Relationships = normRels(r.Relationships)
	return r
}

func normSpec(r tracker.SpecRecord) tracker.SpecRecord {
	r.Description = clone(r.Description)
	r.ParentID = clone(r.ParentID)
	r.Tags = normTags(r.Tags)
	r.CreatedAt = utc(r.CreatedAt)
	r.UpdatedAt = utc(r.UpdatedAt)
	r.Relationships = normRels(r.Relationships)
	return r
}

func normFeedback(f tracker.Feedback) tracker.Feedback {
	f.Anchor.SectionHeading = clone(f.Anchor.SectionHeading)
	f.Anchor.SectionLevel = clone(f.Anchor.SectionLevel)
	f.Anchor.LastVerifiedAt = utc(f.Anchor.LastVerifiedAt)
	f.Anchor.OriginalLocation.SectionHeading = clone(f.Anchor.OriginalLocation.SectionHeading)
	f.Resolution = clone(f.Resolution)
	f.CreatedAt = utc(f.CreatedAt)
	f.UpdatedAt = utc(f.UpdatedAt)
	return f
}

func requireIDs(id, uuid string, byUUID bool) error {
	if id == "" {
		return errors.New(`missing "id"`)
	}
	if byUUID && uuid == "" {
		return errors.New(`missing "uuid"`)
	}
	return nil
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
	kind:      Issues,
	byUUID:    true,
	key:       func(r *tracker.IssueRecord) string { return r.UUID },
	id:        func(r *tracker.IssueRecord) string { return r.ID },
	check:     func(r *tracker.IssueRecord) error { return requireIDs(r.ID, r.UUID, true) },
	normalize: normIssue,
	merge:     mergeIssue,
	rename: renameLinked(func(r *tracker.IssueRecord) (*string, **string, []tracker.Relationship) {
		return &r.ID, &r.ParentID, r.Relationships
	}, normIssue),
}

var specSpec = &spec[tracker.SpecRecord]{
	kind:      Specs,
	byUUID:    true,
	key:       func(r *tracker.SpecRecord) string { return r.UUID },
	id:        func(r *tracker.SpecRecord) string { return r.ID },
	check:     func(r *tracker.SpecRecord) error { return requireIDs(r.ID, r.UUID, true) },
	normalize: normSpec,
	merge:     mergeSpec,
	rename: renameLinked(func(r *tracker.SpecRecord) (*string, **string, []tracker.Relationship) {
		return &r.ID, &r.ParentID, r.Relationships
	}, normSpec),
}

var feedbackSpec = &spec[tracker.Feedback]{
	kind:      Feedback,
	byUUID:    false,
	key:       func(f *tracker.Feedback) string { return f.ID },
	id:        func(f *tracker.Feedback) string { return f.ID },
	check:     func(f *tracker.Feedback) error { return requireIDs(f.ID, "", false) },
	normalize: normFeedback,
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
	old := make(map[relKey]bool, len(baseRels))
	for _, r := range baseRels {
		old[keyOf(r)] = true
	}
	for i := range rels {
		mr := m
		if old[keyOf(rels[i])] {
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
