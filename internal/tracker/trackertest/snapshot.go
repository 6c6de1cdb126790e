// Package trackertest holds what several of the tracker's test packages
// need: records to build files from, the first difference of two files, a
// snapshot of a tracker's files and the check that a command left them as
// they were. It imports only the domain, so that every tracker package's
// tests can use it.
package trackertest

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Snapshot is every file under the tracker directory dir (a .sudocode),
// by path relative to dir, except those whose path starts with one of
// skip (the store's cache and lock).
func Snapshot(t testing.TB, dir string, skip ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		for _, s := range skip {
			if strings.HasPrefix(rel, s) {
				return nil
			}
		}
		b, err := os.ReadFile(p)
		out[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Same reports every file created, removed or changed between two
// snapshots; what names the command that ran between them.
func Same(t testing.TB, what string, before, after map[string]string) {
	t.Helper()
	paths := map[string]bool{}
	for p := range before {
		paths[p] = true
	}
	for p := range after {
		paths[p] = true
	}
	for _, p := range slices.Sorted(maps.Keys(paths)) {
		b, inBefore := before[p]
		a, inAfter := after[p]
		switch {
		case !inBefore:
			t.Errorf("%s: created %s:\n%s", what, p, a)
		case !inAfter:
			t.Errorf("%s: removed %s", what, p)
		case a != b:
			t.Errorf("%s: changed %s\nbefore:\n%s\nafter:\n%s", what, p, b, a)
		}
	}
}
