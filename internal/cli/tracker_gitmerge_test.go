package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/testkit"
	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/trackertest"
)

// TestGitMergeOfTwoBranches runs the real thing: a git repository whose
// tracker init registered `sudocode merge-driver` (found on PATH), two
// branches that both create and edit issues, and a git merge that must
// finish without conflict, losing and duplicating nothing.
func TestGitMergeOfTwoBranches(t *testing.T) {
	p, git := newGitProj(t)
	if got := git("config", "merge.sudocode.driver"); got != "sudocode merge-driver %O %A %B %P" {
		t.Fatalf("driver = %q", got)
	}
	shared := p.js("issue", "create", "Shared issue", "--json").str("id")
	other := p.js("issue", "create", "Other issue", "--json").str("id")
	git("add", "-A")
	git("commit", "-qm", "base")

	git("checkout", "-qb", "left")
	left := p.js("issue", "create", "Made on the left", "--json").str("id")
	p.ok("issue", "update", shared, "--priority", "0")
	p.ok("link", left, shared, "--type", "blocks")
	git("add", "-A")
	git("commit", "-qm", "left")

	git("checkout", "-q", "main")
	right := p.js("issue", "create", "Made on the right", "--json").str("id")
	p.ok("issue", "update", shared, "--assignee", "bob")
	p.ok("issue", "close", other)
	git("add", "-A")
	git("commit", "-qm", "right")

	out := git("merge", "-q", "--no-edit", "left")
	if strings.Contains(out, "CONFLICT") {
		t.Fatalf("merge conflicted:\n%s", out)
	}
	if st := git("status", "--porcelain", "--untracked-files=no"); st != "" {
		t.Fatalf("work tree not clean after merge:\n%s", st)
	}

	list := p.js("issue", "list", "--all")
	if n := list.num("total"); n != 4 {
		t.Fatalf("%d issues after merge, want 4:\n%s", n, p.ok("issue", "list", "--all"))
	}
	for _, id := range []string{shared, other, left, right} {
		p.ok("issue", "show", id)
	}
	s := p.js("issue", "show", shared, "--json")
	if s.num("priority") != 0 || s.str("assignee") != "bob" {
		t.Fatalf("edits of both branches should survive: priority %d assignee %q", s.num("priority"), s.str("assignee"))
	}
	if p.js("issue", "show", other, "--json").str("status") != "closed" {
		t.Fatal("the close on main was lost")
	}
	if bs := p.js("issue", "show", left, "--json").list("blocked_by"); len(bs) != 1 {
		t.Fatalf("the left branch's link was lost: blocked_by %v", bs)
	}
	if n := len(trackertest.ReadRecords[tracker.IssueRecord](t, p.dir)); n != 4 {
		t.Fatalf("the issue files hold %d records, want 4 (nothing duplicated)", n)
	}
}

// newGitProj is a git repository with a tracker that init set up, whose
// commands (and git's merge driver) run the built sudocode, found on PATH;
// git runs in it through the function returned.
func newGitProj(t *testing.T) (*proj, func(args ...string) string) {
	t.Helper()
	path := filepath.Dir(sudocodeBin) + string(os.PathListSeparator) + os.Getenv("PATH")
	p := newBareProj(t, "PATH="+path, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull,
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	p.bin = true // the environment above is git's, which only a process passes on
	git := func(args ...string) string {
		t.Helper()
		return testkit.GitWith(t, p.env, p.root, args...)
	}
	git("init", "-q", "-b", "main")
	p.ok("init")
	return p, git
}

// issueLines counts the lines of the tracker's issue files, in whichever
// layout the store wrote them: issues.jsonl, or the shards
// records/issues/<xx>.jsonl.
func issueLines(t *testing.T, p *proj) int {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(p.dir, "records", "issues", "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range append(files, filepath.Join(p.dir, "issues.jsonl")) {
		data, err := os.ReadFile(f)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		n += strings.Count(string(data), "\n")
	}
	return n
}
