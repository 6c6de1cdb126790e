package gitx

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/testkit"
)

// The user's own configuration may include other files (and name a
// global excludes file) anywhere in the home: a sandboxed git reads
// them, where it would otherwise die on the include.
func TestUserConfigIncludesReadable(t *testing.T) {
	repo := newRepo(t)
	// No identity of the repository's own: the user's included one applies.
	testkit.Git(t, repo, "config", "--remove-section", "user")
	home := t.TempDir()
	write(t, filepath.Join(home, "dots", "extra"), "[user]\n\tname = Included Name\n\temail = inc@example.com\n")
	write(t, filepath.Join(home, "dots", "ignore"), "*.log\n")
	write(t, filepath.Join(home, ".gitconfig"), "[include]\n\tpath = dots/extra\n[core]\n\texcludesFile = ~/dots/ignore\n")
	write(t, filepath.Join(home, ".ssh", "config"), "[user]\n\tname = secret\n")
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	write(t, filepath.Join(repo, "x.log"), "log\n")
	write(t, filepath.Join(repo, "y.txt"), "y\n")
	out, err := gitOut(t, Options{Dir: repo}, "status", "--porcelain")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "x.log") || !strings.Contains(out, "y.txt") {
		t.Fatalf("status %q: the global excludes file was not applied", out)
	}
	out, err = gitOut(t, Options{Dir: repo}, "var", "GIT_AUTHOR_IDENT")
	if err != nil || !strings.HasPrefix(out, "Included Name <inc@example.com>") {
		t.Fatalf("ident %q %v", out, err)
	}
	// A credential store is never granted, even when included.
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[include]\n\tpath = ~/.ssh/config\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range userConfigFiles(home) {
		if strings.Contains(f, ".ssh") {
			t.Fatalf("granted %s", f)
		}
	}
}
