package gitinfo

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/testkit"
	"github.com/sudocode/sudocode/internal/workspace"
	"github.com/sudocode/sudocode/internal/workspace/wstest"
)

func gitStatusT(t *testing.T, r *workspace.Root, path string, untracked bool, max int) map[string]any {
	t.Helper()
	out, err := Status(context.Background(), r, path, untracked, max)
	if err != nil {
		t.Fatal(err)
	}
	res := wstest.Fields(out)
	if _, ok := res["ok"]; ok {
		t.Fatal("result carries ok")
	}
	for _, k := range []string{"is_repo", "branch", "head", "upstream", "ahead", "behind", "clean", "entries", "truncated", "warnings"} {
		if _, ok := res[k]; !ok {
			t.Fatalf("result lacks %s: %v", k, res)
		}
	}
	if res["warnings"] == nil || res["entries"] == nil {
		t.Fatalf("nil warnings or entries: %v", res)
	}
	if _, err := json.Marshal(res); err != nil {
		t.Fatal(err)
	}
	return res
}

// gitEntryList renders entries as "path<-orig:XY" sorted.
func gitEntryList(res map[string]any) []string {
	out := render(res["entries"].([]StatusEntry), func(e StatusEntry) string {
		s := e.Path
		if e.OriginalPath != "" {
			s += "<-" + e.OriginalPath
		}
		return s + ":" + e.IndexStatus + e.WorktreeStatus
	})
	sort.Strings(out)
	return out
}

func gitWantEntries(t *testing.T, res map[string]any, want ...string) {
	t.Helper()
	sort.Strings(want)
	wantList(t, "entries", gitEntryList(res), want)
}

func TestGitStatusFields(t *testing.T) {
	repo := testkit.RepoOf(t, map[string]string{"mod.txt": "m\n", "staged.txt": "s\n", "both.txt": "b\n", "gone.txt": "g\n",
		"old.txt": "rename me\n", "dir/keep.txt": "k\n", "sp ace é.txt": "x\n"})
	wstest.Write(t, repo, map[string]string{"mod.txt": "m2\n", "staged.txt": "s2\n", "both.txt": "b2\n", "new.txt": "n\n",
		"untracked.txt": "u\n", "dir/untracked/deep.txt": "d\n", "sp ace é.txt": "y\n", "ignored.log": "i\n", ".gitignore": "*.log\n"})
	testkit.Git(t, repo, "add", "staged.txt", "both.txt", "new.txt", ".gitignore")
	wstest.Write(t, repo, map[string]string{"both.txt": "b3\n"})
	os.Remove(filepath.Join(repo, "gone.txt"))
	testkit.Git(t, repo, "mv", "old.txt", "renamed.txt")
	r := wstest.Open(t, repo, workspace.Open)

	res := gitStatusT(t, r, ".", true, 1000)
	gitWantEntries(t, res, "mod.txt: M", "staged.txt:M ", "both.txt:MM", "new.txt:A ", ".gitignore:A ", "gone.txt: D",
		"renamed.txt<-old.txt:R ", "untracked.txt:??", "dir/untracked/deep.txt:??", "sp ace é.txt: M")
	if res["is_repo"] != true || res["branch"] != "main" || res["head"] != gitHeadSHA(t, repo) || res["upstream"] != "" ||
		res["ahead"] != 0 || res["behind"] != 0 || res["clean"] != false || res["truncated"] != false {
		t.Fatalf("fields %v", res)
	}
	if len(res["warnings"].([]string)) != 0 {
		t.Fatalf("warnings %v", res["warnings"])
	}

	// Untracked off.
	res = gitStatusT(t, r, ".", false, 1000)
	gitWantEntries(t, res, "mod.txt: M", "staged.txt:M ", "both.txt:MM", "new.txt:A ", ".gitignore:A ", "gone.txt: D",
		"renamed.txt<-old.txt:R ", "sp ace é.txt: M")

	// Scoped to a path.
	res = gitStatusT(t, r, "dir", true, 1000)
	gitWantEntries(t, res, "dir/untracked/deep.txt:??")
	res = gitStatusT(t, r, "mod.txt", true, 1000)
	gitWantEntries(t, res, "mod.txt: M")
	res = gitStatusT(t, r, "", true, 1000) // empty path is "."
	if len(gitEntryList(res)) != 10 {
		t.Fatalf("empty path: %v", gitEntryList(res))
	}
}

func TestGitStatusClean(t *testing.T) {
	repo := testkit.RepoOf(t, map[string]string{"a.txt": "a\n"})
	r := wstest.Open(t, repo, workspace.Open)
	res := gitStatusT(t, r, ".", true, 1000)
	gitWantEntries(t, res)
	if res["clean"] != true || res["truncated"] != false || res["is_repo"] != true {
		t.Fatalf("%v", res)
	}
	// Untracked files make it unclean only when listed.
	wstest.Write(t, repo, map[string]string{"u.txt": "u\n"})
	if res := gitStatusT(t, r, ".", true, 1000); res["clean"] != false {
		t.Fatalf("%v", res)
	}
	if res := gitStatusT(t, r, ".", false, 1000); res["clean"] != true {
		t.Fatalf("%v", res)
	}
}

func TestGitStatusPathErrors(t *testing.T) {
	repo := testkit.RepoOf(t, map[string]string{"a.txt": "a\n"})
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(repo, "escape")); err != nil {
		t.Fatal(err)
	}
	r := wstest.Open(t, repo, workspace.Open)
	for path, code := range map[string]string{
		"missing":  "NOT_FOUND",
		"../x":     "PATH_OUTSIDE_WORKSPACE",
		"/etc":     "ABSOLUTE_PATH_DENIED",
		"escape":   "SYMLINK_ESCAPE",
		"a\x00b":   "INVALID_ARGUMENT",
		"C:/stuff": "ABSOLUTE_PATH_DENIED",
	} {
		_, err := Status(context.Background(), r, path, true, 10)
		wstest.Code(t, err, code)
	}
}

func TestGitStatusSubdirWorkspace(t *testing.T) {
	repo := testkit.RepoOf(t, map[string]string{"top.txt": "t\n", "sub/in.txt": "i\n", "sub/deep/d.txt": "d\n", "subx/y.txt": "y\n"})
	wstest.Write(t, repo, map[string]string{"top.txt": "t2\n", "sub/in.txt": "i2\n", "sub/deep/d.txt": "d2\n", "sub/new.txt": "n\n",
		"subx/y.txt": "y2\n", "untr.txt": "u\n"})
	testkit.Git(t, repo, "add", "sub/deep/d.txt")
	r := wstest.Open(t, filepath.Join(repo, "sub"), workspace.Open)
	res := gitStatusT(t, r, ".", true, 1000)
	gitWantEntries(t, res, "in.txt: M", "deep/d.txt:M ", "new.txt:??")
	if res["branch"] != "main" || res["head"] != gitHeadSHA(t, repo) {
		t.Fatalf("%v", res)
	}
	res = gitStatusT(t, r, "deep", true, 1000)
	gitWantEntries(t, res, "deep/d.txt:M ")
}

func TestGitStatusDetached(t *testing.T) {
	repo := testkit.RepoOf(t, map[string]string{"a.txt": "a\n"})
	wstest.Write(t, repo, map[string]string{"a.txt": "a2\n"})
	testkit.Git(t, repo, "commit", "-qam", "second")
	first := testkit.Git(t, repo, "rev-parse", "HEAD~1")
	testkit.Git(t, repo, "checkout", "-q", "--detach", first)
	r := wstest.Open(t, repo, workspace.Open)
	res := gitStatusT(t, r, ".", true, 1000)
	if res["branch"] != "(detached)" || res["head"] != first || res["upstream"] != "" || res["clean"] != true {
		t.Fatalf("%v", res)
	}
}

func TestGitStatusNoCommits(t *testing.T) {
	repo := t.TempDir()
	testkit.Git(t, repo, "init", "-q")
	wstest.Write(t, repo, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	testkit.Git(t, repo, "add", "a.txt")
	r := wstest.Open(t, repo, workspace.Open)
	res := gitStatusT(t, r, ".", true, 1000)
	if res["is_repo"] != true || res["branch"] != "main" || res["head"] != "" || res["ahead"] != 0 {
		t.Fatalf("%v", res)
	}
	gitWantEntries(t, res, "a.txt:A ", "b.txt:??")
}

func TestGitStatusUpstream(t *testing.T) {
	remote := testkit.RepoOf(t, map[string]string{"a.txt": "a\n"})
	parent := t.TempDir()
	testkit.Git(t, parent, "clone", "-q", remote, "work")
	work := filepath.Join(parent, "work")
	// Two commits on the remote, one local: behind 2, ahead 1.
	for i := 0; i < 2; i++ {
		wstest.Write(t, remote, map[string]string{"r.txt": fmt.Sprint(i)})
		testkit.Git(t, remote, "add", "r.txt")
		testkit.Git(t, remote, "commit", "-qm", "remote")
	}
	wstest.Write(t, work, map[string]string{"l.txt": "l\n"})
	testkit.Git(t, work, "add", "l.txt")
	testkit.Git(t, work, "commit", "-qm", "local")
	testkit.Git(t, work, "fetch", "-q")
	r := wstest.Open(t, work, workspace.Open)
	res := gitStatusT(t, r, ".", true, 1000)
	if res["upstream"] != "origin/main" || res["ahead"] != 1 || res["behind"] != 2 || res["branch"] != "main" || res["clean"] != true {
		t.Fatalf("%v", res)
	}
	// A branch without upstream: zeros.
	testkit.Git(t, work, "checkout", "-qb", "topic")
	res = gitStatusT(t, r, ".", true, 1000)
	if res["upstream"] != "" || res["ahead"] != 0 || res["behind"] != 0 || res["branch"] != "topic" {
		t.Fatalf("%v", res)
	}
}

func TestGitStatusMaxEntries(t *testing.T) {
	repo := testkit.RepoOf(t, map[string]string{"a.txt": "a\n"})
	for i := 0; i < 5; i++ {
		wstest.Write(t, repo, map[string]string{fmt.Sprintf("u%d.txt", i): "u\n"})
	}
	r := wstest.Open(t, repo, workspace.Open)
	res := gitStatusT(t, r, ".", true, 3)
	if len(res["entries"].([]StatusEntry)) != 3 || res["truncated"] != true || res["clean"] != false {
		t.Fatalf("%v", res)
	}
	if w := res["warnings"].([]string); len(w) != 1 || !strings.Contains(w[0], "truncated") {
		t.Fatalf("warnings %v", w)
	}
	res = gitStatusT(t, r, ".", true, 5)
	if len(res["entries"].([]StatusEntry)) != 5 || res["truncated"] != false {
		t.Fatalf("%v", res)
	}
}

func TestGitStatusUnmerged(t *testing.T) {
	repo := testkit.RepoOf(t, map[string]string{"c.txt": "base\n"})
	testkit.Git(t, repo, "checkout", "-qb", "other")
	wstest.Write(t, repo, map[string]string{"c.txt": "other\n"})
	testkit.Git(t, repo, "commit", "-qam", "other")
	testkit.Git(t, repo, "checkout", "-q", "main")
	wstest.Write(t, repo, map[string]string{"c.txt": "main\n"})
	testkit.Git(t, repo, "commit", "-qam", "main")
	// The merge conflicts (and fails).
	_ = testkit.GitCmd(repo, "-c", "user.name=T", "-c", "user.email=t@e", "merge", "-q", "other").Run()
	r := wstest.Open(t, repo, workspace.Open)
	res := gitStatusT(t, r, ".", true, 100)
	gitWantEntries(t, res, "c.txt:UU")
}

func TestGitStatusNotRepo(t *testing.T) {
	dir := t.TempDir()
	wstest.Write(t, dir, map[string]string{"a.txt": "a\n"})
	r := wstest.Open(t, dir, workspace.Open)
	res := gitStatusT(t, r, ".", true, 100)
	if res["is_repo"] != false || res["clean"] != true || res["truncated"] != false || len(res["entries"].([]StatusEntry)) != 0 ||
		res["branch"] != "" || res["head"] != "" || res["ahead"] != 0 {
		t.Fatalf("%v", res)
	}
	// The path is still checked.
	_, err := Status(context.Background(), r, "nope", true, 100)
	wstest.Code(t, err, "NOT_FOUND")
	// Inside a .git directory is not a work tree either.
	repo := testkit.RepoOf(t, map[string]string{"a.txt": "a\n"})
	res = gitStatusT(t, wstest.Open(t, filepath.Join(repo, ".git"), workspace.Open), ".", true, 100)
	if res["is_repo"] != false {
		t.Fatalf("%v", res)
	}
}
