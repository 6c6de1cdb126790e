package gitx

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/testkit"
)

// Discovery reads the repository's files instead of asking git, and asks
// git where the layout is not the plain one: either way it finds what git
// finds, from the top, a subdirectory, a linked worktree, with an
// included configuration or a core.worktree naming the work tree itself;
// and inside a git directory it fails as git does.
func TestDiscoverAgreesWithGit(t *testing.T) {
	repo := newRepo(t)
	write(t, filepath.Join(repo, "sub", "deeper", "f.txt"), "f\n")
	wt := filepath.Join(filepath.Dir(repo), filepath.Base(repo)+"-linked")
	t.Cleanup(func() { os.RemoveAll(wt) })
	testkit.Git(t, repo, "worktree", "add", "-q", "--detach", wt)
	if err := os.MkdirAll(filepath.Join(wt, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	included := newRepo(t)
	write(t, filepath.Join(included, "extra.cfg"), "[user]\n\tname = X\n")
	testkit.Git(t, included, "config", "include.path", "../extra.cfg")
	selfWorktree := newRepo(t)
	testkit.Git(t, selfWorktree, "config", "core.worktree", selfWorktree)
	for _, dir := range []string{repo, filepath.Join(repo, "sub", "deeper"), wt, filepath.Join(wt, "sub"), included, selfWorktree} {
		r, err := Discover(context.Background(), Options{Dir: dir})
		if err != nil {
			t.Errorf("%s: %v", dir, err)
			continue
		}
		want := strings.Split(testkit.Git(t, dir, "rev-parse", "--path-format=absolute", "--show-toplevel", "--git-dir", "--git-common-dir", "--show-prefix")+"\n", "\n")
		got := []string{r.Top, r.GitDir, r.CommonDir, r.Prefix}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("%s: discovered %q, git says %q", dir, got, want[:4])
				break
			}
		}
	}
	_, err := Discover(context.Background(), Options{Dir: filepath.Join(repo, ".git", "refs")})
	if ee, ok := err.(*ExitError); !ok || !strings.Contains(ee.Stderr, "must be run in a work tree") {
		t.Errorf("inside the git directory: %v, want git's own refusal", err)
	}
	_, err = Discover(context.Background(), Options{Dir: t.TempDir()})
	if ee, ok := err.(*ExitError); !ok || !strings.Contains(ee.Stderr, "not a git repository") {
		t.Errorf("outside any repository: %v, want git's own message", err)
	}
}
