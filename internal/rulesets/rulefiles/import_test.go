package rulefiles_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/rulesets"
	"github.com/sudocode/sudocode/internal/rulesets/rulefiles"
)

// TestImport: a first import creates every ruleset; a second skips them
// as unchanged; a changed file is skipped (the library's ruleset differs)
// until --force updates it, keeping the tags a hand-written file cannot
// carry.
func TestImport(t *testing.T) {
	forEachStore(t, func(t *testing.T, lib rulesets.Library) {
		ctx := context.Background()
		repo := t.TempDir()
		copyTree(t, "testdata/handwritten", repo)
		rep, err := rulefiles.Import(ctx, lib, repo, []string{repo}, false)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Created != 8 || rep.Updated != 0 || rep.Skipped != 0 {
			t.Fatalf("first import:\n%s", rulefiles.FormatImport(rep))
		}
		r, err := lib.Get(ctx, "react_components")
		if err != nil || r.Description != "React component conventions" || strings.Join(r.Globs, "|") != "src/components/**/*.tsx|src/**/*.{ts,tsx}" || r.Always {
			t.Fatalf("react_components: %+v, %v", r, err)
		}
		tags := []string{"react"}
		if _, err := lib.Upsert(ctx, rulesets.Patch{Name: "claude", Tags: tags, SetTags: true}); err != nil {
			t.Fatal(err)
		}
		rep, _ = rulefiles.Import(ctx, lib, repo, []string{repo}, false)
		if rep.Skipped != 8 || !strings.Contains(rulefiles.FormatImport(rep), "\nskipped claude (CLAUDE.md): unchanged") {
			t.Fatalf("second import:\n%s", rulefiles.FormatImport(rep))
		}
		os.WriteFile(filepath.Join(repo, "CLAUDE.md"), []byte("# Project notes\n\nRun `make test` first.\n"), 0o644)
		rep, _ = rulefiles.Import(ctx, lib, repo, []string{filepath.Join(repo, "CLAUDE.md")}, false)
		want := "Imported 1 ruleset(s): 0 created, 0 updated, 1 skipped\nskipped claude (CLAUDE.md): the library's ruleset differs; pass --force (force: true) to overwrite it"
		if got := rulefiles.FormatImport(rep); got != want {
			t.Fatalf("import of a changed file:\n%s\nwant:\n%s", got, want)
		}
		if r, _ := lib.Get(ctx, "claude"); !strings.Contains(r.Markdown, "make check") {
			t.Fatalf("overwritten without force: %q", r.Markdown)
		}
		rep, _ = rulefiles.Import(ctx, lib, repo, []string{repo}, true)
		if rep.Updated != 1 || rep.Skipped != 7 {
			t.Fatalf("forced import:\n%s", rulefiles.FormatImport(rep))
		}
		if r, _ := lib.Get(ctx, "claude"); r.Markdown != "# Project notes\n\nRun `make test` first." || strings.Join(r.Tags, ",") != "react" || !r.Always {
			t.Fatalf("after the forced import: %+v", r)
		}
		h, _ := lib.History(ctx, "claude", 1)
		if h[0].By != "alice" || h[0].Action != rulesets.ActionUpdated {
			t.Fatalf("the forced import's change: %+v", h[0])
		}
		if _, err := rulefiles.Import(ctx, lib, repo, []string{filepath.Join(repo, "missing")}, false); err == nil {
			t.Fatal("import of a missing path succeeded")
		}
	})
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	if err := os.CopyFS(to, os.DirFS(from)); err != nil {
		t.Fatal(err)
	}
}
