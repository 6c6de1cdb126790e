package cli_test

import (
	"strings"
	"testing"
)

// task follow-up gives a finished task's agent new instructions, as
// update_task does: the agent runs again in the same worktree with them,
// the issue records them, and the report is printed as task start prints it.
func TestTaskFollowUpRunsTheAgentAgain(t *testing.T) {
	dir, env, first, _ := taskRepo(t)
	run := func(args ...string) result { return runMain(t, dir, env, "", args...) }
	r := run("task", "start", first, "--agent", "command", "--command", "cat > prompt.txt", "--json")
	if r.code != 0 {
		t.Fatalf("task start: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	id := jsonField(t, r.stdout, "id")
	r = run("task", "follow-up", id, "Say goodbye too.")
	if r.code != 0 {
		t.Fatalf("task follow-up: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "completion: exited with code 0") || !strings.Contains(r.stdout, "(command) completed") {
		t.Errorf("follow-up report: %s", r.stdout)
	}
	if diff := run("task", "show", id, "--diff").stdout; !strings.Contains(diff, "+Say goodbye too.") {
		t.Errorf("the agent did not get the new instructions: %s", diff)
	}
	if desc := run("issue", "show", first, "--json").stdout; !strings.Contains(desc, "Say goodbye too.") {
		t.Errorf("the issue does not record the follow-up: %s", desc)
	}
	for _, args := range [][]string{{"task", "follow-up", id}, {"task", "follow-up", id, "  "}} {
		if r := run(args...); r.code != 2 || !strings.Contains(r.stderr, "INSTRUCTIONS") {
			t.Errorf("%q: exit %d: %s", args, r.code, r.stderr)
		}
	}
}

// The hints of a refused merge name the CLI's commands, not the MCP tools
// a shell user cannot call.
func TestTaskMergeHintsNameCLICommands(t *testing.T) {
	dir, env, first, _ := taskRepo(t)
	run := func(args ...string) result { return runMain(t, dir, env, "", args...) }
	r := run("task", "start", first, "--agent", "command", "--command", "echo half > half.txt; exit 3", "--json")
	if r.code != 1 {
		t.Fatalf("task start of a failing agent: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	id := jsonField(t, r.stdout, "id")
	for _, args := range [][]string{{"task", "merge", id}, {"task", "merge", id, "--json"}} {
		r = run(args...)
		if r.code != 4 {
			t.Fatalf("%q: exit %d: %s%s", args, r.code, r.stdout, r.stderr)
		}
		if strings.Contains(r.stderr, "_task") || !strings.Contains(r.stderr, "sudocode task show "+id) ||
			!strings.Contains(r.stderr, "sudocode task follow-up "+id) {
			t.Errorf("%q: the hint names no CLI command: %s", args, r.stderr)
		}
	}
}
