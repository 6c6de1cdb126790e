package gitx

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// GIT_CEILING_DIRECTORIES in the server's environment bounds where git
// looks for a repository: a directory below a repository's work tree but
// at or under the ceiling is no repository. It only ever makes git find
// less, so it passes through where the other GIT_* variables do not.
func TestCeilingDirectoriesHonoured(t *testing.T) {
	repo := newRepo(t)
	sub := filepath.Join(repo, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Output(context.Background(), Options{Dir: sub}, 100, "rev-parse", "--show-toplevel"); err != nil {
		t.Fatalf("without a ceiling, %s is inside %s: %v", sub, repo, err)
	}
	t.Setenv("GIT_CEILING_DIRECTORIES", repo)
	if out, err := Output(context.Background(), Options{Dir: sub}, 100, "rev-parse", "--show-toplevel"); err == nil {
		t.Fatalf("with the ceiling at %s, git found the repository %q from %s", repo, out, sub)
	}
}
