package store_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/sudocode/sudocode/internal/tracker/store"
	"github.com/sudocode/sudocode/internal/tracker/trackergen"
)

// BenchmarkUpdateHistory updates one issue of a generated repository of
// 10,000 issues: a change the history records (status, appended to the
// issue's activity shard) beside one it does not (priority), so that the
// cost of recording history is their difference.
func BenchmarkUpdateHistory(b *testing.B) {
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
	r.KeepStatements()
	l, err := r.ListIssues(ctx, store.IssueFilter{Limit: 1}) // builds the cache
	if err != nil || len(l.Issues) == 0 {
		b.Fatalf("%v, %v", l, err)
	}
	id := l.Issues[0].ID
	for _, bc := range []struct {
		name  string
		patch func(i int) store.IssuePatch
	}{
		{"priority", func(i int) store.IssuePatch { p := 1 + i%2; return store.IssuePatch{Priority: &p} }},
		{"status", func(i int) store.IssuePatch {
			s := [...]string{"blocked", "open"}[i%2]
			return store.IssuePatch{Status: &s}
		}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			i := 0
			for b.Loop() {
				if _, err := r.UpdateIssue(ctx, id, bc.patch(i)); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}
