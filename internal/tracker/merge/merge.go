// Package merge merges the tracker's JSONL files: the shard files
// records/<kind>/<xx>.jsonl (kind issues, specs, feedback or activity; xx = 00 to ff,
// see tracker.ShardFile), and the single files issues.jsonl, specs.jsonl and
// feedback.jsonl of the first layout. It is a three-way merge for the git
// merge driver (`sudocode merge-driver %O %A %B %P`, see Driver) and a
// two-way merge for `sudocode import`. The result is always the canonical
// encoding of the merged records (see tracker.EncodeIssues), so merging is
// idempotent and its output never depends on the order of the input lines.
//
// Git merges each shard file on its own: a shard only one branch changed is
// taken as it is, and the driver runs only for a shard both branches
// changed (or both created: the base is then empty). The driver sees that
// one file, so everything below is per file. Since a record's shard is a
// function of its id, two records with one id are always in the same shard
// file, and an id collision is always seen by the merge of that file.
//
// Rules:
//
//   - Issues and specs match on uuid; feedback and activity (comments and
//     history), which have no uuid, match on id. Activity records are
//     append-only, so their merge is the union of both sides; a record
//     that differs on the two sides is taken whole from the later edit.
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
//     other files are NOT rewritten by this per-file merge: those of
//     records in other shards (a child's parent_id, a relationship to it,
//     which is stored on the record it starts from), feedback's issue_id
//     and spec_id, and the spec's file_path (its markdown body keeps its
//     name). Nor can the merge see ids in other shards, so the new id is
//     unused in this file's inputs only. ThreeWay, TwoWay and Driver return
//     the renames so the caller can rewrite references or warn.
//   - The renamed record stays in the merged file, although its new id
//     usually belongs to another shard: git takes back only the file the
//     driver merged (%A). It is misplaced there until the tracker next reads
//     its files, which moves misplaced records to their shards.
//
// Malformed input on any side (a line that is not one JSON object of the
// kind, an unknown key, a missing id or uuid, a duplicate uuid or id) is an
// error naming the side, the file (the shard's path when the caller gave
// it, as Driver does; else the kind's first-layout file name) and the line;
// no partial result is ever returned.
package merge

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/sudocode/sudocode/internal/tracker"
)

// KindOf returns the kind of the tracker file at path (slash or OS
// separators, relative to any directory): a shard file
// records/<issues|specs|feedback|activity>/<00-ff>.jsonl, or a file of the first
// layout (issues.jsonl, specs.jsonl, feedback.jsonl).
func KindOf(path string) (tracker.RecordKind, error) {
	if k, ok := tracker.KindOfFile(path); ok {
		return k, nil
	}
	if tracker.IsActivityFile(path) {
		return tracker.ActivityRecords, nil
	}
	return 0, fmt.Errorf("merge: %q is not a tracker file (want a shard %s/<issues|specs|feedback|activity>/<00-ff>.jsonl, or issues.jsonl, specs.jsonl or feedback.jsonl of the first layout)", path, tracker.RecordsDir)
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
// resolve id collisions (always nil for feedback), sorted by old id.
// An empty base is a file both sides added. A malformed line is a
// *tracker.LineError naming the kind's file as the tracker's parser does;
// Driver names the merged file's path instead.
func ThreeWay(kind tracker.RecordKind, base, ours, theirs []byte) ([]byte, []Rename, error) {
	return threeWay(kind, "", base, ours, theirs)
}

// TwoWay merges incoming records into current, with no common ancestor, as
// `sudocode import` does: records only in current are kept, records only in
// incoming are added, records in both are merged (differing fields from the
// later updated_at, equal: current; lists united). Incoming records whose id
// collides with a different current record are renamed as in ThreeWay
// (incoming plays theirs).
func TwoWay(kind tracker.RecordKind, current, incoming []byte) ([]byte, []Rename, error) {
	return ThreeWay(kind, nil, current, incoming)
}

// threeWay is ThreeWay whose line errors name file, when not empty.
func threeWay(kind tracker.RecordKind, file string, base, ours, theirs []byte) ([]byte, []Rename, error) {
	switch kind {
	case tracker.IssueRecords:
		return run3(issueSpec, file, base, ours, theirs)
	case tracker.SpecRecords:
		return run3(specSpec, file, base, ours, theirs)
	case tracker.FeedbackRecords:
		return run3(feedbackSpec, file, base, ours, theirs)
	case tracker.ActivityRecords:
		return run3(activitySpec, file, base, ours, theirs)
	}
	return nil, nil, fmt.Errorf("merge: unknown kind %v", kind)
}

func run3[T any](s *spec[T], file string, base, ours, theirs []byte) ([]byte, []Rename, error) {
	var sides [3][]T
	for i, data := range [][]byte{base, ours, theirs} {
		recs, err := s.parse(data)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", [...]string{"base", "ours", "theirs"}[i], named(err, file))
		}
		sides[i] = recs
	}
	recs, renames := merge3(s, sides[0], sides[1], sides[2])
	out, err := s.encode(recs)
	if err != nil {
		return nil, nil, err
	}
	return out, renames, nil
}

// named returns err with the file of its line error replaced by file: the
// parser knows only the kind, the caller may know which shard it read.
func named(err error, file string) error {
	var le *tracker.LineError
	if file == "" || !errors.As(err, &le) {
		return err
	}
	c := *le
	c.File = file
	return &c
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
