package store_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/sudocode/sudocode/internal/sqlitex"
	"github.com/sudocode/sudocode/internal/tracker/store"
	"github.com/sudocode/sudocode/internal/tracker/trackergen"
)

// TestBuildFromNothing: the cache of a fresh clone is written straight
// into its file, not through the WAL (which the checkpoint then copies
// again), and left in WAL mode for the readers and writers that follow.
// When another connection holds the new cache open, the build goes
// through the WAL as any change does, and gives the same answers.
func TestBuildFromNothing(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	if err := trackergen.Generate(root, trackergen.Size{Issues: 3000, Specs: 100, Relationships: 6000}); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, ".sudocode")
	stats := func(r *store.Repo) any {
		s, err := r.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	build := func(opened func()) (walBytes int64, mode string, answer any) {
		r, err := store.Open(ctx, dir, "t")
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		opened()
		answer = stats(r) // builds the cache
		if fi, err := os.Stat(filepath.Join(dir, store.CacheFile+"-wal")); err == nil {
			walBytes = fi.Size()
		}
		db, err := sqlitex.Open(ctx, filepath.Join(dir, store.CacheFile), 1, "SELECT 1")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if err := db.QueryRowContext(ctx, `PRAGMA journal_mode`).Scan(&mode); err != nil {
			t.Fatal(err)
		}
		return walBytes, mode, answer
	}
	removeCache := func() {
		for _, f := range []string{store.CacheFile, store.CacheFile + "-wal", store.CacheFile + "-shm"} {
			os.Remove(filepath.Join(dir, f))
		}
	}

	wal, mode, direct := build(func() {})
	if mode != "wal" {
		t.Errorf("after a build from nothing the cache is in %s mode, want wal", mode)
	}
	if wal > 256<<10 {
		t.Errorf("a build from nothing left %d bytes of WAL: it went through the WAL", wal)
	}

	removeCache()
	wal, mode, held := build(func() {
		// Another process reads the new cache, and keeps it open.
		holder, err := sqlitex.Open(ctx, filepath.Join(dir, store.CacheFile), 1, "SELECT count(*) FROM meta")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { holder.Close() })
	})
	if mode != "wal" || wal < 256<<10 {
		t.Errorf("a build while another connection holds the cache: %s mode, %d bytes of WAL; want it through the WAL", mode, wal)
	}
	if !reflect.DeepEqual(direct, held) {
		t.Errorf("the two builds differ:\n%v\n%v", direct, held)
	}
}
