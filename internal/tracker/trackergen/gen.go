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

// Benchmark is the size the tracker's performance targets are set for.
var Benchmark = Size{Issues: 10_000, Specs: 1_000, Relationships: 20_000}

// Generate writes a tracker of the given size into dir/.sudocode, as its
// files would be after months of use: half the issues closed, blocking
// links to older issues (so no cycles), parent-child trees and references.
// The same size always gives the same shape.
func Generate(dir string, size Size) error {
	rng := rand.New(rand.NewPCG(1, 2))
	tdir := filepath.Join(dir, ".sudocode")
	if err := os.MkdirAll(filepath.Join(tdir, "specs"), 0o755); err != nil {
		return err
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	issues := make([]tracker.IssueRecord, size.Issues)
	statuses := []tracker.IssueStatus{"open", "open", "in_progress", "closed", "closed", "closed", "closed", "blocked"}
	for i := range issues {
		uuid := tracker.NewUUID()
		at := t0.Add(time.Duration(i) * time.Minute)
		st := statuses[rng.IntN(len(statuses))]
		is := tracker.Issue{ID: tracker.IssueID("sudocode", tracker.Hash(uuid, 6)), UUID: uuid,
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
		uuid := tracker.NewUUID()
		at := t0.Add(time.Duration(i) * time.Hour)
		id := tracker.SpecID("sudocode", tracker.Hash(uuid, 5))
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
	ib, err := tracker.EncodeIssues(issues)
	if err != nil {
		return err
	}
	sb, err := tracker.EncodeSpecs(specs)
	if err != nil {
		return err
	}
	files := map[string][]byte{"issues.jsonl": ib, "specs.jsonl": sb, "feedback.jsonl": nil,
		"config.json": []byte(`{"prefix": "sudocode", "version": 1}` + "\n")}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(tdir, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
