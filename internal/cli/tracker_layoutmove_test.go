package cli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/tracker"
)

// TestOldBranchMergedAfterTheMove: a repository committed in the first
// layout (one issues.jsonl) is moved into shards by the next command on
// main; a branch made before the move, where an older sudocode edited an
// issue and added one in issues.jsonl, is then merged. With a few issues,
// git may take the move for a rename of issues.jsonl to a shard and merge
// the branch's change into that shard through the driver; with more, it
// stops on the file main removed and the branch changed, and keeping the
// branch's file, as the README says, the next command merges it into the
// shards. Either way the branch's edit and its new issue arrive, main's
// later edit stays, and the old file is gone.
func TestOldBranchMergedAfterTheMove(t *testing.T) {
	t.Run("2 issues", func(t *testing.T) { oldBranchMerged(t, 0) })
	t.Run("12 issues", func(t *testing.T) { oldBranchMerged(t, 10) })
}

func oldBranchMerged(t *testing.T, more int) {
	p, git := newGitProj(t)
	alpha := p.js("issue", "create", "Alpha").str("id")
	bravo := p.js("issue", "create", "Bravo").str("id")
	for i := range more {
		p.ok("issue", "create", fmt.Sprint("More ", i))
	}
	old := firstLayout(t, p.dir)
	git("add", "-A")
	git("commit", "-qm", "first layout")

	git("checkout", "-qb", "old")
	lines := strings.Split(strings.TrimSuffix(old, "\n"), "\n")
	for i, l := range lines {
		recs, err := tracker.ParseIssues([]byte(l), nil)
		if err != nil {
			t.Fatal(err)
		}
		r := recs[0]
		if r.ID == alpha {
			r.Title = "Alpha, edited on the old branch"
			r.UpdatedAt = r.UpdatedAt.Add(60_000_000_000)
			b, _ := tracker.MarshalLine(r)
			lines[i] = strings.TrimSuffix(string(b), "\n")
			r.ID, r.UUID, r.Title = "sudocode-zzzz", "00000000-0000-4000-8000-000000000001", "Made on the old branch"
			b, _ = tracker.MarshalLine(r)
			lines = append(lines, strings.TrimSuffix(string(b), "\n"))
			break
		}
	}
	sort.Strings(lines)
	putFile(t, filepath.Join(p.dir, "issues.jsonl"), strings.Join(lines, "\n")+"\n")
	git("commit", "-qam", "an older sudocode on the old branch")

	git("checkout", "-q", "main")
	p.ok("status") // the move
	if _, err := os.Stat(filepath.Join(p.dir, "issues.jsonl")); !os.IsNotExist(err) {
		t.Fatalf("issues.jsonl after the move: %v", err)
	}
	p.ok("issue", "update", bravo, "--priority", "0")
	git("add", "-A")
	git("commit", "-qm", "the move, and an edit")

	out, merged := gitMay(t, p, p.root, "merge", "--no-edit", "old")
	// Which way git goes depends on how alike the old file and a shard
	// are (a rename needs half the lines in common): both must work.
	switch conflict := strings.Contains(out, "CONFLICT (modify/delete)"); {
	case conflict:
		git("add", ".sudocode/issues.jsonl")
	case !merged:
		t.Fatalf("merge of the old branch:\n%s", out)
	}
	if got := p.js("issue", "show", alpha).str("title"); got != "Alpha, edited on the old branch" {
		t.Errorf("the old branch's edit: title %q", got)
	}
	if got := p.js("issue", "show", "sudocode-zzzz").str("title"); got != "Made on the old branch" {
		t.Errorf("the old branch's new issue: %q", got)
	}
	if got := p.js("issue", "show", bravo).num("priority"); got != 0 {
		t.Errorf("main's edit after the move: priority %d", got)
	}
	if _, err := os.Stat(filepath.Join(p.dir, "issues.jsonl")); !os.IsNotExist(err) {
		t.Errorf("issues.jsonl is still there: %v", err)
	}
	git("add", "-A")
	git("commit", "-q", "--allow-empty", "-m", "merge old") // a rename's merge is committed already
	if n := issueLines(t, p); n != 3+more {
		t.Errorf("the issue files hold %d lines, want %d", n, 3+more)
	}
	p.ok("status")
	if st := git("status", "--porcelain"); st != "" {
		t.Errorf("a command after the merge changed files:\n%s", st)
	}
}

// firstLayout rewrites the tracker in dir in the first layout (one
// issues.jsonl, no shards) and returns that file's content.
func firstLayout(t *testing.T, dir string) string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, tracker.RecordsDir, "issues", "*.jsonl"))
	var lines []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")...)
	}
	sort.Strings(lines)
	text := strings.Join(lines, "\n") + "\n"
	putFile(t, filepath.Join(dir, "issues.jsonl"), text)
	if err := os.RemoveAll(filepath.Join(dir, tracker.RecordsDir)); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"cache.db", "cache.db-wal", "cache.db-shm"} {
		os.Remove(filepath.Join(dir, f))
	}
	return text
}

func putFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
