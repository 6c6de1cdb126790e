package store_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/sudocode/sudocode/internal/tracker/store"
	"github.com/sudocode/sudocode/internal/tracker/trackergen"
)

// BenchmarkListIssuesWhole reads the list of every issue of a generated
// repository of 10,000 issues, as issue list --all with a limit above the
// total does, inside one process (bench/ measures whole processes).
func BenchmarkListIssuesWhole(b *testing.B) {
	root := b.TempDir()
	if err := trackergen.Generate(root, trackergen.Benchmark); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	r, err := store.Open(ctx, filepath.Join(root, ".sudocode"), "bench")
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	f := store.IssueFilter{Limit: 1 << 30}
	if _, err := r.ListIssues(ctx, f); err != nil { // builds the cache
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		l, err := r.ListIssues(ctx, f)
		if err != nil || len(l.Issues) != trackergen.Benchmark.Issues {
			b.Fatalf("%d issues, %v", len(l.Issues), err)
		}
	}
}
