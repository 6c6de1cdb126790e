package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/testkit"
)

// stateOf is the state `task list --json` gives task id.
func stateOf(t *testing.T, dir string, env []string, id string) string {
	t.Helper()
	var list struct{ Tasks []struct{ ID, State string } }
	_ = json.Unmarshal([]byte(runMain(t, dir, env, "", "task", "list", "--json").stdout), &list)
	for _, it := range list.Tasks {
		if it.ID == id {
			return it.State
		}
	}
	return ""
}

// What a reviewer sees is what the merge takes: an agent that commits one
// file and leaves another untracked shows both in `task show --diff`; a
// merge refused for a conflict changes neither the task's branch nor its
// worktree; the merge that follows takes both files and discards nothing.
func TestTaskDiffIsWhatTheMergeTakes(t *testing.T) {
	dir, env, first, _ := taskRepo(t)
	run := func(args ...string) result { return runMain(t, dir, env, "", args...) }
	agent := "echo hello > greeting.txt && git add greeting.txt && git commit -qm greeting && echo use > use.txt"
	r := run("task", "start", first, "--agent", "command", "--command", agent, "--json")
	if r.code != 0 {
		t.Fatalf("task start: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	var rep struct{ ID string }
	_ = json.Unmarshal([]byte(r.stdout), &rep)
	var list struct {
		Tasks []struct {
			WorktreePath string `json:"worktree_path"`
			Branch       string
		}
	}
	_ = json.Unmarshal([]byte(run("task", "list", "--json").stdout), &list)
	if len(list.Tasks) != 1 || list.Tasks[0].WorktreePath == "" || list.Tasks[0].Branch == "" {
		t.Fatalf("task list: no worktree or branch: %+v", list)
	}
	shown := list.Tasks[0]

	r = run("task", "show", rep.ID, "--diff")
	for _, want := range []string{"diff --git a/greeting.txt b/greeting.txt", "+hello", "diff --git a/use.txt b/use.txt", "+use", "not committed yet: use.txt"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("task show --diff lacks %q:\n%s%s", want, r.stdout, r.stderr)
		}
	}
	r = run("task", "show", rep.ID, "--diff", "--json")
	var withDiff struct {
		Diff struct {
			Text        string   `json:"text"`
			Files       []string `json:"files"`
			Uncommitted []string `json:"uncommitted"`
			Truncated   bool     `json:"truncated"`
		} `json:"diff"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &withDiff); err != nil {
		t.Fatalf("task show --diff --json: %v: %s", err, r.stdout)
	}
	if d := withDiff.Diff; strings.Join(d.Files, ",") != "greeting.txt,use.txt" || strings.Join(d.Uncommitted, ",") != "use.txt" || !strings.Contains(d.Text, "+use") {
		t.Errorf("task show --diff --json: %+v", d)
	}

	// The checkout gets a use.txt of its own: the merge conflicts.
	if err := os.WriteFile(filepath.Join(dir, "use.txt"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	testkit.Git(t, dir, "add", "use.txt")
	testkit.Git(t, dir, "commit", "-qm", "use.txt of the checkout")
	tip := testkit.Git(t, dir, "rev-parse", "refs/heads/"+shown.Branch)
	status := testkit.Git(t, shown.WorktreePath, "status", "--porcelain")
	r = run("task", "merge", rep.ID, "--json")
	if r.code != 4 || !strings.Contains(r.stderr, "use.txt") {
		t.Fatalf("conflicting merge: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	if got := testkit.Git(t, dir, "rev-parse", "refs/heads/"+shown.Branch); got != tip {
		t.Errorf("a refused merge moved the task's branch from %s to %s", tip, got)
	}
	if got := testkit.Git(t, shown.WorktreePath, "status", "--porcelain"); got != status {
		t.Errorf("a refused merge changed the worktree's status from %q to %q", status, got)
	}
	if st := stateOf(t, dir, env, rep.ID); st != "conflicted" {
		t.Errorf("task list: the task whose merge conflicted reads %q", st)
	}

	testkit.Git(t, dir, "rm", "-q", "use.txt")
	testkit.Git(t, dir, "commit", "-qm", "no use.txt in the checkout")
	r = run("task", "merge", rep.ID, "--json")
	if r.code != 0 {
		t.Fatalf("task merge: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	var merged struct {
		Files   []string
		Removal struct {
			Discarded []string `json:"discarded"`
		}
	}
	_ = json.Unmarshal([]byte(r.stdout), &merged)
	if strings.Join(merged.Files, ",") != "greeting.txt,use.txt" || len(merged.Removal.Discarded) != 0 {
		t.Errorf("task merge: %s", r.stdout)
	}
	if got := testkit.Git(t, dir, "show", "HEAD:use.txt"); got != "use" {
		t.Errorf("main's use.txt = %q", got)
	}
	if st := stateOf(t, dir, env, rep.ID); st != "merged" {
		t.Errorf("task list: the merged task reads %q", st)
	}
	if human := run("task", "list").stdout; !strings.Contains(human, "STATE") || !strings.Contains(human, "merged") {
		t.Errorf("task list:\n%s", human)
	}
}

// Ending a task hands its issue back: `task end` of a waiting task whose
// agent holds the issue leaves the issue open, unassigned, ready again,
// with a line saying what happened.
func TestTaskEndReopensItsIssue(t *testing.T) {
	dir, env, first, _ := taskRepo(t)
	run := func(args ...string) result { return runMain(t, dir, env, "", args...) }
	r := run("task", "start", first, "--agent", "command", "--command", "echo hi > hi.txt", "--json")
	if r.code != 0 {
		t.Fatalf("task start: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	var rep struct{ ID, Prompt string }
	_ = json.Unmarshal([]byte(r.stdout), &rep)
	// No CLI is told to commit, which some cannot do (Claude Code in its
	// default mode): what the worktree holds is what is merged.
	if strings.Contains(rep.Prompt, "commit your changes") || !strings.Contains(rep.Prompt, "you need not commit") {
		t.Errorf("the prompt's way of working:\n%s", rep.Prompt)
	}
	if show := run("issue", "show", first, "--json").stdout; !strings.Contains(show, `"status": "in_progress"`) {
		t.Fatalf("the started issue is not in progress: %s", show)
	}
	r = run("task", "end", rep.ID)
	if r.code != 0 {
		t.Fatalf("task end: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	var is struct {
		Status      string
		Assignee    *string
		Description string
	}
	_ = json.Unmarshal([]byte(run("issue", "show", first, "--json").stdout), &is)
	if is.Status != "open" || (is.Assignee != nil && *is.Assignee != "") ||
		!strings.Contains(is.Description, "Agent task "+rep.ID+" (command) was ended") || !strings.Contains(is.Description, "The issue is open again.") {
		t.Errorf("the ended task's issue: %+v", is)
	}
	if ready := run("ready", "--json").stdout; !strings.Contains(ready, first) {
		t.Errorf("the issue is not ready again: %s", ready)
	}
	if st := stateOf(t, dir, env, rep.ID); st != "ended" {
		t.Errorf("task list: the ended task reads %q", st)
	}
}
