// Package merge merges the tracker's JSONL files (issues.jsonl, specs.jsonl,
// feedback.jsonl): a three-way merge for the git merge driver
// (`sudocode merge-driver %O %A %B %P`) and a two-way merge for
// `sudocode import`. The result is always the canonical encoding of the
// merged records (see tracker.EncodeIssues), so merging is idempotent and its output
// never depends on the order of the input lines.
//
// Rules:
//
//   - Issues and specs match on uuid; feedback, which has no uuid, matches on id.
//   - A record only on one side and not in the base was added: it is kept.
//   - A record in the base and missing on one side was deleted there. The
//     deletion wins only if the other side left the record unchanged from
//     the base (compared by canonical encoding); otherwise the record
//     survives as the other side has it.
//   - A record on both sides is merged field by field. A field (or a group
//     of fields that only make sense together: an issue's status, closed_at
//     and close_reason; a feedback's status and resolution; a feedback's
//     whole anchor) that only one side changed from the base takes that
//     side's value, so two edits of different fields both survive. A field
//     both sides changed differently, or any differing field when there is
//     no base, takes the value of the side with the later updated_at
//     (equal: ours). The merged updated_at is the later of the two.
//     The id of a record on both sides is always ours.
//   - Lists (tags; relationships, keyed by (from, to, type)) are merged
//     element by element: the union of both sides, less the elements that
//     were in the base and that one side removed (a removal wins over a side
//     that still has the element from the base, just as a record deletion
//     does). Without a base (TwoWay, or a record both sides added) that is
//     the plain union. A relationship on both sides keeps the version with
//     the earlier created_at.
//   - Id collisions: two different uuids with the same id (both branches
//     created the same short id, or one branch reused an id the other still
//     has). The ours-side record keeps its id; the theirs-side record is
//     renamed by appending the characters of its uuid (lower-case hex,
//     without dashes) one at a time until the id is unused in any of the
//     inputs ("sudocode-a1b2" with uuid "c3f0…" becomes "sudocode-a1b2c"),
//     and the references to it inside the theirs-side records of the same
//     file (the renamed record's id, parent_id, relationships' from and to)
//     are rewritten before the merge. A reference theirs added names
//     theirs' record; a reference theirs kept unchanged from the base names
//     the base's record of that id, so it is rewritten only when the
//     renamed record is that one. Ours is never rewritten. References in
//     other files (feedback's issue_id and spec_id, relationships in the
//     other JSONL file) and the spec's file_path (its markdown body keeps
//     its name) are NOT rewritten by this per-file merge: ThreeWay and
//     TwoWay return the renames so the caller can rewrite them or warn.
//
// Malformed input on any side (a line that is not one JSON object of the
// kind, an unknown key, a missing id or uuid, a duplicate uuid or id) is an
// error naming the file kind and line; no partial result is ever returned.
package merge

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
)

// Kind is the kind of a tracker JSONL file.
type Kind int

// The file kinds, by the file's base name.
const (
	Issues   Kind = iota // issues.jsonl
	Specs                // specs.jsonl
	Feedback             // feedback.jsonl
)

// String returns the kind's file name, e.g. "issues.jsonl".
func (k Kind) String() string {
	switch k {
	case Issues:
		return "issues.jsonl"
	case Specs:
		return "specs.jsonl"
	case Feedback:
		return "feedback.jsonl"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// KindOf returns the kind of the file at path, by its base name
// (issues.jsonl, specs.jsonl or feedback.jsonl; slash or OS separators).
func KindOf(path string) (Kind, error) {
	base := filepath.Base(filepath.FromSlash(path))
	for _, k := range []Kind{Issues, Specs, Feedback} {
		if base == k.String() {
			return k, nil
		}
	}
	return 0, fmt.Errorf("merge: %q is not a tracker file (want issues.jsonl, specs.jsonl or feedback.jsonl)", path)
}

// Rename records that the theirs-side (incoming) record with the given uuid
// was renamed from Old to New to resolve an id collision. References to Old
// inside the same file's theirs-side records were rewritten; references in
// other files were not.
type Rename struct {
	Old, New, UUID string
}

// ThreeWay merges base (the common ancestor), ours and theirs, all of the
// given kind, and returns the canonical merged file and the renames made to
// resolve id collisions (always nil for Feedback), sorted by old id.
// An empty base is a file both sides added.
func ThreeWay(kind Kind, base, ours, theirs []byte) ([]byte, []Rename, error) {
	switch kind {
	case Issues:
		return run3(issueSpec, base, ours, theirs)
	case Specs:
		return run3(specSpec, base, ours, theirs)
	case Feedback:
		return run3(feedbackSpec, base, ours, theirs)
	}
	return nil, nil, fmt.Errorf("merge: unknown kind %v", kind)
}

// TwoWay merges incoming records into current, with no common ancestor, as
// `sudocode import` does: records only in current are kept, records only in
// incoming are added, records in both are merged (differing fields from the
// later updated_at, equal: current; lists united). Incoming records whose id
// collides with a different current record are renamed as in ThreeWay
// (incoming plays theirs).
func TwoWay(kind Kind, current, incoming []byte) ([]byte, []Rename, error) {
	return ThreeWay(kind, nil, current, incoming)
}

func run3[T any](s *spec[T], base, ours, theirs []byte) ([]byte, []Rename, error) {
	b, err := s.parse(base)
	if err != nil {
		return nil, nil, fmt.Errorf("base: %w", err)
	}
	o, err := s.parse(ours)
	if err != nil {
		return nil, nil, fmt.Errorf("ours: %w", err)
	}
	t, err := s.parse(theirs)
	if err != nil {
		return nil, nil, fmt.Errorf("theirs: %w", err)
	}
	recs, renames := merge3(s, b, o, t)
	out, err := s.encode(recs)
	if err != nil {
		return nil, nil, err
	}
	return out, renames, nil
}

// merge3 merges parsed records; base may be empty.
func merge3[T any](s *spec[T], base, ours, theirs []T) ([]T, []Rename) {
	b, o, t := index(s, base), index(s, ours), index(s, theirs)

	keys := map[string]bool{}
	for _, m := range []map[string]*T{b, o, t} {
		for k := range m {
			keys[k] = true
		}
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)

	// Decide each record's fate on the inputs as they are.
	type fate int
	const (
		gone fate = iota
		fromOurs
		fromTheirs
		fromBoth
	)
	fates := make(map[string]fate, len(sorted))
	for _, k := range sorted {
		bb, inO, inT := b[k], o[k] != nil, t[k] != nil
		switch {
		case inO && inT:
			fates[k] = fromBoth
		case inO:
			if bb == nil || !s.same(bb, o[k]) {
				fates[k] = fromOurs
			}
		case inT:
			if bb == nil || !s.same(bb, t[k]) {
				fates[k] = fromTheirs
			}
		}
	}

	// Id collisions: a record kept from theirs alone whose id an ours-side
	// record of the result holds.
	var renames []Rename
	if s.byUUID {
		oursIDs := map[string]bool{}
		taken := map[string]bool{}
		for _, m := range []map[string]*T{b, o, t} {
			for _, r := range m {
				taken[s.id(r)] = true
			}
		}
		for _, k := range sorted {
			if f := fates[k]; f == fromOurs || f == fromBoth {
				oursIDs[s.id(o[k])] = true
			}
		}
		var clash []*T
		for _, k := range sorted {
			if fates[k] == fromTheirs && oursIDs[s.id(t[k])] {
				clash = append(clash, t[k])
			}
		}
		sort.Slice(clash, func(i, j int) bool { return s.id(clash[i]) < s.id(clash[j]) })
		for _, r := range clash {
			n := newID(s.id(r), s.key(r), taken)
			taken[n] = true
			renames = append(renames, Rename{Old: s.id(r), New: n, UUID: s.key(r)})
		}
		if len(renames) > 0 {
			// A reference theirs introduced means theirs' record of that
			// id; one theirs inherited unchanged from the base means the
			// base's record of that id, which is the renamed one only if
			// the renamed record was in the base under that id.
			m := make(map[string]string, len(renames))
			inherited := map[string]string{}
			for _, rn := range renames {
				m[rn.Old] = rn.New
				if br := b[rn.UUID]; br != nil && s.id(br) == rn.Old {
					inherited[rn.Old] = rn.New
				}
			}
			for k, r := range t {
				s.rename(r, b[k], m, inherited)
			}
		}
	}

	out := make([]T, 0, len(sorted))
	for _, k := range sorted {
		switch fates[k] {
		case fromOurs:
			out = append(out, *o[k])
		case fromTheirs:
			out = append(out, *t[k])
		case fromBoth:
			out = append(out, s.merge(b[k], o[k], t[k]))
		}
	}
	return out, renames
}

// index normalizes copies of recs and maps them by match key. The inputs
// come from parse, which rejects duplicate keys.
func index[T any](s *spec[T], recs []T) map[string]*T {
	m := make(map[string]*T, len(recs))
	for i := range recs {
		r := s.normalize(recs[i])
		m[s.key(&r)] = &r
	}
	return m
}

// newID appends the characters of uuid (hex, without dashes, lower case) to
// old one at a time until the id is not taken. Should every prefix be taken,
// it counts: old-2, old-3, …
func newID(old, uuid string, taken map[string]bool) string {
	var hex strings.Builder
	for _, c := range strings.ToLower(uuid) {
		if (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') {
			hex.WriteRune(c)
		}
	}
	h := hex.String()
	for n := 1; n <= len(h); n++ {
		if id := old + h[:n]; !taken[id] {
			return id
		}
	}
	for n := 2; ; n++ {
		if id := fmt.Sprintf("%s%s-%d", old, h, n); !taken[id] {
			return id
		}
	}
}
