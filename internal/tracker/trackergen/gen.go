// Package trackergen generates tracker repositories of a chosen size for
// benchmarks and load tests.
package trackergen

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sudocode/sudocode/internal/tracker"
)

// Size is how much to generate.
type Size struct{ Issues, Specs, Relationships int }

// Benchmark is the size the tracker's performance targets are set for;
// Large is the size its scale targets are set for.
var (
	Benchmark = Size{Issues: 10_000, Specs: 1_000, Relationships: 20_000}
	Large     = Size{Issues: 100_000, Specs: 10_000, Relationships: 200_000}
)

// Generate writes a tracker of the given size into dir/.sudocode, as its
// files would be after months of use: half the issues closed, blocking
// links to older issues (so no cycles), parent-child trees and references.
// The same size always gives the same files: uuids come from a seeded
// generator, and an id that collides grows, as the tracker's own do.
// The records are in shard files, the layout the tracker writes.
func Generate(dir string, size Size) error {
	return generate(dir, size, shardLayout)
}

// GenerateFirstLayout writes the same tracker as Generate, records and
// all, in the first layout (one issues.jsonl, specs.jsonl and
// feedback.jsonl): a repository from before shard files, which the next
// command migrates.
func GenerateFirstLayout(dir string, size Size) error {
	return generate(dir, size, firstLayout)
}

func generate(dir string, size Size, layout func(map[string][]byte, []tracker.IssueRecord, []tracker.SpecRecord) error) error {
	rng := rand.New(rand.NewPCG(1, 2))
	ids := map[string]bool{}
	newID := func(n int, form func(string) string) (uuid, id string) {
		uuid = seededUUID(rng)
		for id = form(tracker.Hash(uuid, n)); ids[id]; n++ {
			id = form(tracker.Hash(uuid, n+1))
		}
		ids[id] = true
		return uuid, id
	}
	tdir := filepath.Join(dir, ".sudocode")
	if err := os.MkdirAll(filepath.Join(tdir, "specs"), 0o755); err != nil {
		return err
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	issues := make([]tracker.IssueRecord, size.Issues)
	statuses := []tracker.IssueStatus{"open", "open", "in_progress", "closed", "closed", "closed", "closed", "blocked"}
	for i := range issues {
		uuid, id := newID(6, func(h string) string { return tracker.IssueID("sudocode", h) })
		at := t0.Add(time.Duration(i) * time.Minute)
		st := statuses[rng.IntN(len(statuses))]
		is := tracker.Issue{ID: id, UUID: uuid,
			Title: fmt.Sprintf("Issue %d: make the thing work", i), Description: strings.Repeat("Some words about the work. ", 8),
			Status: st, Type: tracker.IssueTypes[rng.IntN(5)], Priority: rng.IntN(5), Tags: []string{"gen"},
			CreatedAt: at, UpdatedAt: at, CreatedBy: "bench"}
		if st == tracker.IssueClosed {
			is.ClosedAt = &at
		}
		issues[i] = tracker.IssueRecord{Issue: is}
	}
	specs := make([]tracker.SpecRecord, size.Specs)
	for i := range specs {
		uuid, id := newID(5, func(h string) string { return tracker.SpecID("sudocode", h) })
		at := t0.Add(time.Duration(i) * time.Hour)
		specs[i] = tracker.SpecRecord{Spec: tracker.Spec{ID: id, UUID: uuid, Title: fmt.Sprintf("Spec %d", i),
			Type: "feature", Status: tracker.SpecStatuses[rng.IntN(4)], Priority: 2, FilePath: "specs/" + id + ".md",
			Tags: []string{}, CreatedAt: at, UpdatedAt: at, CreatedBy: "bench"}}
		body := fmt.Sprintf("# Spec %d\n\n## Goals\n\nDo the thing well.\n\n## Design\n\nThe design of thing %d.\n", i, i)
		if err := os.WriteFile(filepath.Join(tdir, "specs", id+".md"), []byte(body), 0o644); err != nil {
			return err
		}
	}
	seen := map[string]bool{}
	for n := 0; n < size.Relationships; {
		from, to := rng.IntN(size.Issues), rng.IntN(size.Issues)
		if from == to {
			continue
		}
		var typ tracker.RelType
		switch r := rng.IntN(10); {
		case r < 2:
			typ = tracker.RelBlocks
			if from < to { // blocking links point at older issues: no cycles
				from, to = to, from
			}
		case r < 3:
			typ = tracker.RelDependsOn
			if from < to {
				from, to = to, from
			}
		case r < 4:
			typ = tracker.RelParentChild
			if from > to { // parents are older
				from, to = to, from
			}
		default:
			typ = tracker.RelReferences
		}
		key := fmt.Sprint(from, to, typ)
		if seen[key] {
			continue
		}
		seen[key] = true
		f := &issues[from]
		f.Relationships = append(f.Relationships, tracker.Relationship{From: f.ID, FromType: tracker.KindIssue,
			To: issues[to].ID, ToType: tracker.KindIssue, Type: typ, CreatedAt: f.CreatedAt, CreatedBy: "bench"})
		n++
	}
	files := map[string][]byte{"config.json": []byte(`{"prefix": "sudocode", "version": 1}` + "\n")}
	if err := layout(files, issues, specs); err != nil {
		return err
	}
	for name, data := range files {
		p := filepath.Join(tdir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// shardLayout adds to files the records in shard files (see
// tracker.ShardFile), the layout the tracker writes: one file per shard
// that holds a record, none for an empty shard.
func shardLayout(files map[string][]byte, issues []tracker.IssueRecord, specs []tracker.SpecRecord) error {
	if err := addShards(files, tracker.IssueRecords, issues, func(r tracker.IssueRecord) string { return r.ID }, tracker.EncodeIssues); err != nil {
		return err
	}
	return addShards(files, tracker.SpecRecords, specs, func(r tracker.SpecRecord) string { return r.ID }, tracker.EncodeSpecs)
}

// addShards adds to files the shard files of kind k holding recs, each
// encoded by encode (which sorts them).
func addShards[T any](files map[string][]byte, k tracker.RecordKind, recs []T, id func(T) string, encode func([]T) ([]byte, error)) error {
	byShard := map[string][]T{}
	for _, r := range recs {
		f := tracker.ShardFile(k, id(r))
		byShard[f] = append(byShard[f], r)
	}
	for f, in := range byShard {
		data, err := encode(in)
		if err != nil {
			return err
		}
		files[f] = data
	}
	return nil
}

// firstLayout adds to files the records in the first layout's single
// files (issues.jsonl, specs.jsonl and an empty feedback.jsonl), as a
// tracker made before shards has them: what the migration starts from.
func firstLayout(files map[string][]byte, issues []tracker.IssueRecord, specs []tracker.SpecRecord) error {
	ib, err := tracker.EncodeIssues(issues)
	if err != nil {
		return err
	}
	sb, err := tracker.EncodeSpecs(specs)
	if err != nil {
		return err
	}
	files[tracker.IssueRecords.LegacyFile()] = ib
	files[tracker.SpecRecords.LegacyFile()] = sb
	files[tracker.FeedbackRecords.LegacyFile()] = nil
	return nil
}

// seededUUID is a version 4 UUID drawn from rng.
func seededUUID(rng *rand.Rand) string {
	var b [16]byte
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}
