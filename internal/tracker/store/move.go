package store

import (
	"bytes"
	"cmp"
	"encoding/json"
	"slices"

	"github.com/sudocode/sudocode/internal/tracker"
)

// A record can sit in another shard file than its own: a merge renamed its
// id, or the shard function changed (64 shards a kind became 256). The
// next rebuild moves it, and a move touches two files: the record's own,
// which gains the line, and the one it leaves. No order of two renames
// makes that atomic, so a move is made in the order that loses nothing:
// first every file is written with its new lines plus the lines leaving
// it (the record is then in both), then the files that held leaving lines
// are written without them. A move killed in between leaves two equal
// copies, and the next read keeps the one in the record's own shard
// (dropLeftovers).

// dropLeftovers removes from the files read a copy of a record held
// outside its own shard when its own shard file holds the same record
// (the same once canonical). Copies that differ stay, for uniqueAcross to
// refuse: which one is right is the user's call.
func dropLeftovers(files []shardContent) {
	dropCopies(files, func(c *shardContent) *[]tracker.IssueRecord { return &c.issues },
		func(r *tracker.IssueRecord) string { return r.ID }, func(r *tracker.IssueRecord) any { c := r.Canonical(); return &c })
	dropCopies(files, func(c *shardContent) *[]tracker.SpecRecord { return &c.specs },
		func(r *tracker.SpecRecord) string { return r.ID }, func(r *tracker.SpecRecord) any { c := r.Canonical(); return &c })
	dropCopies(files, func(c *shardContent) *[]tracker.Feedback { return &c.feedback },
		func(r *tracker.Feedback) string { return r.ID }, func(r *tracker.Feedback) any { c := r.Canonical(); return &c })
}

func dropCopies[T any](files []shardContent, recs func(*shardContent) *[]T, id func(*T) string, canonical func(*T) any) {
	line := func(r *T) string {
		b, _ := tracker.MarshalLine(canonical(r))
		return string(b)
	}
	misplaced := map[string]bool{}
	for i := range files {
		for _, r := range *recs(&files[i]) {
			if files[i].strays[id(&r)] {
				misplaced[id(&r)] = true
			}
		}
	}
	if len(misplaced) == 0 {
		return // the usual case
	}
	inOwn := map[string]string{} // id → canonical line, of the misplaced ids' copies in their own shard
	for i := range files {
		for _, r := range *recs(&files[i]) {
			if misplaced[id(&r)] && !files[i].strays[id(&r)] {
				inOwn[id(&r)] = line(&r)
			}
		}
	}
	for i := range files {
		p := recs(&files[i])
		*p = slices.DeleteFunc(*p, func(r T) bool {
			own, ok := inOwn[id(&r)]
			return ok && files[i].strays[id(&r)] && own == line(&r)
		})
	}
}

// withLeaving is a file's new content, data, with the lines of its
// current content, cur, whose records data does not hold: the records
// leaving the file, which a rebuild put into their own shards. Both are
// JSONL; the result is in id order.
func withLeaving(cur, data []byte) []byte {
	type idLine struct {
		id   string
		line []byte
	}
	var all []idLine
	in := map[string]bool{}
	for _, l := range bytes.SplitAfter(data, []byte("\n")) {
		if len(bytes.TrimSpace(l)) > 0 {
			id := recordID(l)
			in[id] = true
			all = append(all, idLine{id, l})
		}
	}
	n := len(all)
	for _, l := range bytes.SplitAfter(cur, []byte("\n")) {
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		if id := recordID(l); !in[id] {
			if !bytes.HasSuffix(l, []byte("\n")) {
				l = append(slices.Clip(l), '\n')
			}
			all = append(all, idLine{id, l})
		}
	}
	if len(all) == n {
		return data
	}
	slices.SortStableFunc(all, func(a, b idLine) int { return cmp.Compare(a.id, b.id) })
	var out []byte
	for _, l := range all {
		out = append(out, l.line...)
	}
	return out
}

// recordID is the id of a record line, canonical or not (the file was
// read whole before, so every line decodes).
func recordID(line []byte) string {
	if id, ok := lineID(line); ok {
		return id
	}
	var r struct {
		ID string `json:"id"`
	}
	json.Unmarshal(line, &r)
	return r.ID
}
