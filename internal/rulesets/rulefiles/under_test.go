package rulefiles_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/sudocode/sudocode/internal/rulesets/rulefiles"
)

// ImportUnder reads under its directory and nowhere else: a path with
// "..", or through a link leading out, is refused; a relative link that
// stays inside is followed; a file's place in its repository is its path from
// the directory.
func TestImportUnderStaysInItsDirectory(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	for path, text := range map[string]string{
		filepath.Join(outside, "CLAUDE.md"):                      "# Elsewhere\n",
		filepath.Join(root, "svc", "AGENTS.md"):                  "# Service\n",
		filepath.Join(root, "svc", ".cursor", "rules", "go.mdc"): "---\nglobs: \"**/*.go\"\n---\n# Go\n",
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// os.Root follows a relative link that stays inside, and refuses an
	// absolute one as it would any way out.
	for link, target := range map[string]string{"out": outside, "same": "svc", "absolute": filepath.Join(root, "svc")} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	dir, err := os.OpenRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	defer dir.Close()
	lib := embeddedLibrary(t)
	for _, rel := range []string{"out", "out/CLAUDE.md", "absolute", "..", filepath.Join("svc", "..", ".."), filepath.Join("..", filepath.Base(outside), "CLAUDE.md")} {
		if rep, err := rulefiles.ImportUnder(context.Background(), lib, dir, rel, false); err == nil {
			t.Errorf("ImportUnder(%s): %+v, want refused", rel, rep)
		}
	}
	rep, err := rulefiles.ImportUnder(context.Background(), lib, dir, "same", false)
	if err != nil || rep.Created != 2 {
		t.Fatalf("ImportUnder(same): %+v, %v", rep, err)
	}
	rep, err = rulefiles.ImportUnder(context.Background(), lib, dir, filepath.Join("svc", "AGENTS.md"), true)
	if err != nil || len(rep.Rulesets) != 1 || rep.Rulesets[0].Source != "svc/AGENTS.md" {
		t.Errorf("ImportUnder of one file: %+v, %v", rep, err)
	}
}
