package store_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/sudocode/sudocode/internal/tracker/store"
	"github.com/sudocode/sudocode/internal/tracker/trackergen"
)

// BenchmarkBlockedPerRow lists every blocked issue and every issue of one
// generated repository in the same run, inside one process, and reports
// the cost of a row of each: listing blocked work (each row with its
// blockers) should cost what listing costs. TRACKER_SIZE=large runs it on
// 100,000 issues; otherwise on 10,000.
func BenchmarkBlockedPerRow(b *testing.B) {
	size := trackergen.Benchmark
	if os.Getenv("TRACKER_SIZE") == "large" {
		size = trackergen.Large
	}
	root := b.TempDir()
	if err := trackergen.Generate(root, size); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	r, err := store.Open(ctx, filepath.Join(root, ".sudocode"), "bench")
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	all := 1 << 30
	if _, err := r.Stats(ctx); err != nil { // builds the cache
		b.Fatal(err)
	}
	b.Run("blocked", func(b *testing.B) {
		rows := 0
		for b.Loop() {
			res, err := r.Blocked(ctx, store.BlockedOptions{Issues: true, Limit: all})
			if err != nil {
				b.Fatal(err)
			}
			rows = len(*res.Issues)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*rows), "ns/row")
	})
	b.Run("list", func(b *testing.B) {
		rows := 0
		for b.Loop() {
			l, err := r.ListIssues(ctx, store.IssueFilter{Limit: all})
			if err != nil {
				b.Fatal(err)
			}
			rows = len(l.Issues)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*rows), "ns/row")
	})
}
