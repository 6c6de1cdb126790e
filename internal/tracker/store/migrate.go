package store

import (
	"bytes"
	"slices"
	"strings"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/merge"
)

// A tracker of the first layout keeps each kind in one file (issues.jsonl,
// specs.jsonl, feedback.jsonl). The first change (or read) under the lock
// moves them into shard files: the old file is read and checked whole,
// merged with any shard files already there (a pull can bring both), the
// shards are written, read back and compared with what was meant, and only
// then is the old file removed. A run killed midway leaves the old file in
// place, and the next run does the same again to the same result. A first-
// layout file that reappears later (a branch from before the move, merged
// in) is folded in the same way.
func migrateLayout(rs *records) error {
	kinds := rs.legacy()
	if len(kinds) == 0 {
		return nil
	}
	present, err := rs.stats()
	if err != nil {
		return err
	}
	for _, k := range kinds {
		if err := migrateKind(rs, present, k); err != nil {
			return err
		}
	}
	return nil
}

func migrateKind(rs *records, present map[string]string, k tracker.RecordKind) error {
	old, err := rs.read(k.LegacyFile())
	if err != nil {
		return err
	}
	want, err := canonicalKind(k, k.LegacyFile(), old)
	if err != nil {
		return err
	}
	cur, err := readKind(rs, present, k)
	if err != nil {
		return err
	}
	if len(cur) > 0 {
		if want, _, err = merge.TwoWay(k, cur, want); err != nil {
			return fault.New(fault.Invalid, "cannot move %s into %s/%s: %v", k.LegacyFile(), tracker.RecordsDir, k.Dir(), err).
				WithHint("fix the files named; nothing was changed")
		}
		if want, err = canonicalKind(k, "the merge of "+k.LegacyFile(), want); err != nil {
			return err
		}
	}
	if err := writeKind(rs, present, k, want); err != nil {
		return err
	}
	after, err := rs.stats()
	if err != nil {
		return err
	}
	got, err := readKind(rs, after, k)
	if err != nil {
		return err
	}
	if !bytes.Equal(sortLines(got), want) {
		return fault.New(fault.Internal, "moving %s into %s/%s: the shard files read back differ from the records; %s was left in place",
			k.LegacyFile(), tracker.RecordsDir, k.Dir(), k.LegacyFile()).
			WithHint("report this; the tracker keeps working from the old file meanwhile")
	}
	return rs.remove(k.LegacyFile())
}

// canonicalKind checks data as records of kind k (name names it in
// errors) and returns their canonical encoding: sorted, one line each.
func canonicalKind(k tracker.RecordKind, name string, data []byte) ([]byte, error) {
	switch k {
	case tracker.IssueRecords:
		recs, err := parseIssues(name, data)
		if err != nil {
			return nil, err
		}
		return tracker.EncodeIssues(recs)
	case tracker.SpecRecords:
		recs, err := parseSpecs(name, data)
		if err != nil {
			return nil, err
		}
		return tracker.EncodeSpecs(recs)
	default:
		recs, err := parseFeedback(name, data)
		if err != nil {
			return nil, err
		}
		return tracker.EncodeFeedback(recs)
	}
}

// readKind is the content of every shard file of kind k present, one
// after the other (each sorted; the whole is not).
func readKind(rs *records, present map[string]string, k tracker.RecordKind) ([]byte, error) {
	var all []byte
	for _, p := range shardsOf(present, k) {
		data, err := rs.read(p)
		if err != nil {
			return nil, err
		}
		all = append(all, data...)
		if len(data) > 0 && data[len(data)-1] != '\n' {
			all = append(all, '\n')
		}
	}
	return all, nil
}

// splitShards cuts canonical JSONL text (sorted by id) into the shard
// files of kind k.
func splitShards(k tracker.RecordKind, data []byte) (map[string][]byte, error) {
	out := map[string][]byte{}
	for rest := data; len(rest) > 0; {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			i = len(rest) - 1
		}
		line := rest[:i+1]
		rest = rest[i+1:]
		id, ok := lineID(line)
		if !ok {
			return nil, fault.New(fault.Internal, "a %s record line is not canonical", k.Dir())
		}
		f := tracker.ShardFile(k, id)
		out[f] = append(out[f], line...)
	}
	return out, nil
}

// writeKind makes the shard files of kind k hold exactly data (canonical
// JSONL text): a shard whose content differs is rewritten, one with no
// record left is emptied.
func writeKind(rs *records, present map[string]string, k tracker.RecordKind, data []byte) error {
	files, err := splitShards(k, data)
	if err != nil {
		return err
	}
	for _, p := range shardsOf(present, k) {
		if _, ok := files[p]; !ok {
			files[p] = nil
		}
	}
	names := make([]string, 0, len(files))
	for p := range files {
		names = append(names, p)
	}
	slices.Sort(names)
	for _, p := range names {
		if cur, err := rs.read(p); err == nil && bytes.Equal(cur, files[p]) {
			continue
		}
		if err := rs.writeBytes(p, files[p]); err != nil {
			return err
		}
	}
	return nil
}

// sortLines sorts JSONL text's lines (sorted shards, concatenated) by id:
// the canonical order of a whole kind.
func sortLines(data []byte) []byte {
	lines := bytes.SplitAfter(data, []byte{'\n'})
	if n := len(lines); n > 0 && len(lines[n-1]) == 0 {
		lines = lines[:n-1]
	}
	slices.SortStableFunc(lines, func(a, b []byte) int {
		x, _ := lineID(a)
		y, _ := lineID(b)
		return strings.Compare(x, y)
	})
	return bytes.Join(lines, nil)
}
