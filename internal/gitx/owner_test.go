package gitx

import (
	"testing"

	"github.com/sudocode/sudocode/internal/testkit"
)

// A sandboxed git sees the work tree's files with the owner the index
// recorded for them outside the box: otherwise every file looks changed
// (git compares owners), and every read of the work tree, git_status's
// included, hashes every tracked file again and, without locks, cannot
// keep what it learnt. diff-files compares without refreshing: it names
// each file whose recorded stat data no longer matches.
func TestBoxedGitSeesTheIndexedOwner(t *testing.T) {
	repo := testkit.RepoOf(t, map[string]string{"a.txt": "a\n", "dir/b.txt": "b\n"})
	testkit.Git(t, repo, "status", "--porcelain") // the index's stat data fresh, as a user's git leaves it
	out, err := gitOut(t, Options{Dir: repo}, "diff-files", "--name-only")
	if err != nil {
		t.Fatal(err)
	}
	if !sandboxed([]string{"diff-files"}) {
		t.Fatal("diff-files runs unsandboxed: the test proves nothing")
	}
	if out != "" {
		t.Fatalf("the boxed git finds unchanged files stat-dirty (owner differs from the index's):\n%s", out)
	}
}
