package gitx

import (
	"context"
	"testing"
)

// BenchmarkStatus measures what the sandbox costs a git call: the same
// hardened `git status` with and without it, and with the discovery a
// caller that passes no Repo pays.
func BenchmarkStatus(b *testing.B) {
	repo := newRepo(b)
	ctx := context.Background()
	r, err := Discover(ctx, Options{Dir: repo})
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		o         Options
		sandboxed bool
	}{
		{"plain", Options{Dir: repo}, false},
		{"sandboxed", Options{Dir: repo, Repo: r}, true},
		{"sandboxed+discovery", Options{Dir: repo}, true},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if err := run(ctx, c.o, nil, []string{"status", "--porcelain"}, c.sandboxed, true); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDiscover compares discovery by reading the repository's files
// (what every call without a Repo pays) with asking git's rev-parse (what
// it paid before, and what the rarer layouts still pay).
func BenchmarkDiscover(b *testing.B) {
	repo := newRepo(b)
	ctx := context.Background()
	b.Run("files", func(b *testing.B) {
		for b.Loop() {
			if _, err := Discover(ctx, Options{Dir: repo}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("rev-parse", func(b *testing.B) {
		for b.Loop() {
			if _, err := discoverByGit(ctx, Options{Dir: repo}, repo); err != nil {
				b.Fatal(err)
			}
		}
	})
}
