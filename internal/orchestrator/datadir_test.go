package orchestrator

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/sudocode/sudocode/internal/testkit"
)

// TestLookupDataDir: the lookup that skips git agrees with git wherever
// the tasks of an issue are looked up from: the main checkout, a
// subdirectory, a linked work tree (a task's), and no repository at all.
func TestLookupDataDir(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	repo := filepath.Join(root, "repo")
	os.MkdirAll(filepath.Join(repo, "sub"), 0o755)
	testkit.Git(t, repo, "init", "-q")
	testkit.Git(t, repo, "commit", "-q", "--allow-empty", "-m", "first")
	testkit.Git(t, repo, "worktree", "add", "-q", filepath.Join(root, "linked"))
	want, err := DataDir(ctx, repo)
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{repo, filepath.Join(repo, "sub"), filepath.Join(root, "linked")} {
		got, err := lookupDataDir(ctx, dir)
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		if real, _ := filepath.EvalSymlinks(filepath.Dir(got)); filepath.Join(real, "sudocode") != want {
			t.Errorf("lookup from %s: %s, git says %s", dir, got, want)
		}
	}
	if got, err := lookupDataDir(ctx, t.TempDir()); got != "" || err != nil {
		t.Errorf("lookup outside any repository: %q, %v; want none", got, err)
	}
}
