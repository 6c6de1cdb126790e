package cli_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/testkit"
)

// taskRepo is a git repository where `sudocode init` ran and whose tracker
// holds two issues, the second blocked by the first, all committed.
func taskRepo(t *testing.T) (dir string, env []string, first, second string) {
	t.Helper()
	dir = testkit.Repo(t)
	env = childEnv(t, "SUDOCODE_ACTOR=alice")
	ok := func(args ...string) string {
		r := runMain(t, dir, env, "", args...)
		if r.code != 0 {
			t.Fatalf("sudocode %v: exit %d: %s%s", args, r.code, r.stdout, r.stderr)
		}
		return r.stdout
	}
	ok("init", "--prefix", "app")
	var is struct{ ID string }
	_ = json.Unmarshal([]byte(ok("issue", "create", "Add a greeting", "--json")), &is)
	first = is.ID
	_ = json.Unmarshal([]byte(ok("issue", "create", "Add a farewell", "--json")), &is)
	second = is.ID
	ok("link", second, first, "--type", "blocks")
	testkit.Git(t, dir, "add", "-A")
	testkit.Git(t, dir, "commit", "-qm", "tracker")
	return dir, env, first, second
}

// keysOf returns the sorted keys of a JSON object.
func keysOf(t *testing.T, raw string) []string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(raw), &m); err != nil {
		t.Fatalf("not a JSON object: %v: %s", err, raw)
	}
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

func wantKeys(t *testing.T, what, raw string, want ...string) {
	t.Helper()
	got := keysOf(t, raw)
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("%s: no %q in %v", what, w, got)
		}
	}
}

// The task commands and run, end to end with a COMMAND agent, and the
// fields of their --json output, which scripts rely on.
func TestTaskCommandsJSON(t *testing.T) {
	dir, env, first, second := taskRepo(t)
	run := func(args ...string) result { return runMain(t, dir, env, "", args...) }
	commit := func(name string) string {
		return "echo " + name + " > " + name + ".txt && git add " + name + ".txt && git commit -qm " + name
	}

	r := run("task", "start", first, "--agent", "command", "--command", commit("hello"), "--json")
	if r.code != 0 {
		t.Fatalf("task start: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	wantKeys(t, "task start", r.stdout, "id", "tool", "status", "branch", "issue_id", "prompt", "outcome", "files_changed", "commits", "final_answer")
	var rep struct {
		ID, Status, IssueID, Prompt string
		Outcome                     string
	}
	_ = json.Unmarshal([]byte(r.stdout), &rep)
	if rep.Status != "completed" || rep.Outcome != "succeeded" || !strings.Contains(rep.Prompt, "# Issue "+first+": Add a greeting") {
		t.Fatalf("task start report: %s", r.stdout)
	}
	id := rep.ID

	// The issue and the task name each other: issue show and show_issue
	// list the task, the same way.
	shown := run("issue", "show", first, "--json").stdout
	if !strings.Contains(shown, `"tasks": [`) || !strings.Contains(shown, `"id": "`+id+`"`) {
		t.Errorf("issue show does not list task %s: %s", id, shown)
	}
	s, _ := connectStdio(t, append(env, "SUDOCODE_WORKING_DIR="+dir), sudocodeBin, "mcp")
	if text, isErr := callText(t, s, "show_issue", map[string]any{"issue_id": first}); isErr || !jsonSame(text, shown) {
		t.Errorf("show_issue differs from issue show --json:\n%s\n%s", text, shown)
	}

	r = run("task", "list", "--json")
	var list struct{ Tasks []json.RawMessage }
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil || len(list.Tasks) != 1 {
		t.Fatalf("task list: %v %s", err, r.stdout)
	}
	wantKeys(t, "task list item", string(list.Tasks[0]), "id", "issue_id", "tool", "description", "status", "state", "state_text", "branch", "worktree_path", "created_at")
	wantKeys(t, "task show", run("task", "show", id, "--json").stdout, "id", "issue_id", "prompt", "status", "state", "diff_stat")
	r = run("task", "show", id, "--diff", "--json")
	wantKeys(t, "task show --diff", r.stdout, "id", "status", "diff")
	var withDiff struct{ Diff json.RawMessage }
	_ = json.Unmarshal([]byte(r.stdout), &withDiff)
	wantKeys(t, "task show --diff's diff", string(withDiff.Diff), "base_sha", "branch", "source", "files", "uncommitted", "text", "truncated")
	logs := strings.Split(strings.TrimSpace(run("task", "logs", id, "--json").stdout), "\n")
	if len(logs) == 0 {
		t.Fatal("no log lines")
	}
	wantKeys(t, "task logs line", logs[0], "seq", "event")
	if human := run("task", "logs", id, "-f").stdout; !strings.Contains(human, "completion") {
		t.Errorf("task logs -f: %s", human)
	}

	r = run("task", "merge", id, "--json")
	if r.code != 0 {
		t.Fatalf("task merge: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	wantKeys(t, "task merge", r.stdout, "task", "strategy", "base", "commit", "files", "removal", "issue_id", "close_reason")
	if got := testkit.Git(t, dir, "show", "HEAD:hello.txt"); got != "hello" {
		t.Errorf("main's hello.txt = %q", got)
	}

	r = run("run", "--agent", "command", "--command", commit("bye"), "--json")
	if r.code != 0 {
		t.Fatalf("run: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	var rr struct{ Items []json.RawMessage }
	if err := json.Unmarshal([]byte(r.stdout), &rr); err != nil || len(rr.Items) != 1 {
		t.Fatalf("run: %s", r.stdout)
	}
	wantKeys(t, "run item", string(rr.Items[0]), "issue_id", "task_id", "outcome", "commit")
	if !strings.Contains(string(rr.Items[0]), second) || !strings.Contains(string(rr.Items[0]), `"merged"`) {
		t.Errorf("run item: %s", rr.Items[0])
	}

	r = run("issue", "create", "Break things", "--json")
	var is struct{ ID string }
	_ = json.Unmarshal([]byte(r.stdout), &is)
	r = run("task", "start", is.ID, "--agent", "command", "--command", "echo broken >&2; exit 3", "--json")
	if r.code != 1 {
		t.Fatalf("a failing agent: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	_ = json.Unmarshal([]byte(r.stdout), &rep)
	if show := run("issue", "show", is.ID, "--json").stdout; !strings.Contains(show, `"status": "open"`) || !strings.Contains(show, "Agent task "+rep.ID) {
		t.Errorf("the failed issue: %s", show)
	}
	r = run("task", "end", rep.ID, "--json")
	if r.code != 0 {
		t.Fatalf("task end: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	wantKeys(t, "task end", r.stdout, "task", "removal")

	for _, c := range [][]string{{"task"}, {"task", "start"}, {"task", "list"}, {"task", "show"}, {"task", "logs"}, {"task", "merge"}, {"task", "end"}, {"run"}} {
		if h := run(append(c, "--help")...); h.code != 0 || !strings.Contains(h.stdout, "Usage:") || len(h.stdout) < 300 {
			t.Errorf("%v --help: %s", c, h.stdout)
		}
	}
}

func jsonSame(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}
