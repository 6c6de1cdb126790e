package rulefiles_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/rulesets"
	"github.com/sudocode/sudocode/internal/rulesets/rulefiles"
	"github.com/sudocode/sudocode/internal/rulesets/sqlitestore"
)

func embeddedLibrary(t *testing.T) rulesets.Library {
	t.Helper()
	s, err := sqlitestore.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return rulesets.Library{Store: s}
}

// TestImportStaysInTheRepository: a repository is untrusted input. A rule
// file that is a link out of it (to a key, another project's notes) must
// not carry that file into the library, where every agent reads it; a
// FIFO must not hang the import.
func TestImportStaysInTheRepository(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "id_rsa")
	if err := os.WriteFile(outside, []byte("PRIVATE KEY MATERIAL\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, plant := range map[string]func(t *testing.T, repo string){
		"link out": func(t *testing.T, repo string) {
			if err := os.Symlink(outside, filepath.Join(repo, "CLAUDE.md")); err != nil {
				t.Fatal(err)
			}
		},
		"directory link out": func(t *testing.T, repo string) {
			if err := os.Symlink(filepath.Dir(outside), filepath.Join(repo, ".cursor")); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Join(filepath.Dir(outside), "rules"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, filepath.Join(filepath.Dir(outside), "rules", "key.mdc")); err != nil {
				t.Fatal(err)
			}
		},
		"fifo": func(t *testing.T, repo string) {
			if err := mkfifo(filepath.Join(repo, "AGENTS.md")); err != nil {
				t.Fatal(err)
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10e9)
			defer cancel()
			lib := embeddedLibrary(t)
			repo := t.TempDir()
			plant(t, repo)
			// A file is refused by name; a directory link is not walked
			// into at all.
			_, err := rulefiles.Import(ctx, lib, repo, []string{repo}, true)
			if err == nil && name != "directory link out" {
				t.Error("the import went through")
			}
			all, _ := lib.All(context.Background())
			for _, r := range all {
				if strings.Contains(r.Markdown, "PRIVATE KEY") {
					t.Fatalf("%s carried a file from outside the repository into the library", r.Name)
				}
			}
		})
	}
}

// TestExportStaysInTheRepository: export never writes through a link that
// leads out of the repository (.cursor pointing at another directory).
func TestExportStaysInTheRepository(t *testing.T) {
	ctx := context.Background()
	lib := embeddedLibrary(t)
	if err := lib.Create(ctx, rulesets.Ruleset{Name: "go_style", Description: "Go", Tags: []string{}, Markdown: "Run gofmt."}); err != nil {
		t.Fatal(err)
	}
	elsewhere := t.TempDir()
	repo := t.TempDir()
	if err := os.Symlink(elsewhere, filepath.Join(repo, ".cursor")); err != nil {
		t.Fatal(err)
	}
	if _, err := rulefiles.Export(ctx, lib, repo, []string{"cursor"}, false, true); err == nil {
		t.Error("the export went through")
	}
	if entries, _ := os.ReadDir(elsewhere); len(entries) > 0 {
		t.Errorf("the export wrote outside the repository: %v", entries)
	}
}
