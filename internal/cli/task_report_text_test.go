package cli_test

import (
	"strings"
	"testing"
)

// A task's report on a terminal reads as sentences: the agent by the
// name --agent takes, a status in plain grammar, a failure's reason (not
// Go's rendering of a map), commits counted in the right number, and a
// merged task's branch said to be merged rather than to hold 0 commits;
// lists give a task's state in the dashboard's words.
func TestTaskReportReadsAsText(t *testing.T) {
	dir, env, first, second := taskRepo(t)
	run := func(args ...string) result { return runMain(t, dir, env, "", args...) }

	r := run("task", "start", first, "--agent", "command", "--command", "echo half > half.txt; echo 'the disk is full' >&2; exit 3")
	if r.code != 1 {
		t.Fatalf("task start of a failing agent: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"(command) failed\n", "error:   The agent exited with code 3: the disk is full", "(no commits)"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("failed report: no %q in\n%s", want, r.stdout)
		}
	}
	for _, leak := range []string{"map[", "agent_exit", "is failed", "COMMAND"} {
		if strings.Contains(r.stdout, leak) {
			t.Errorf("failed report: %q leaks in\n%s", leak, r.stdout)
		}
	}

	run("issue", "close", second, "--reason", "not needed")
	run("issue", "update", first, "--status", "open")
	r = run("task", "start", first, "--agent", "command", "--command", "echo hi > hi.txt && git add hi.txt && git commit -qm hi")
	if r.code != 0 || !strings.Contains(r.stdout, "(1 commit)") || !strings.Contains(r.stdout, "(command) completed, outcome succeeded") {
		t.Fatalf("task start: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	id := strings.TrimSuffix(strings.Fields(r.stdout)[1], ":")
	// Lists say what the dashboard says of a finished task: it waits for
	// review (a merge, a follow-up or an end), not "completed".
	shownTasks := run("issue", "show", first).stdout
	for what, out := range map[string]string{"task list": run("task", "list").stdout, "issue show": shownTasks[strings.LastIndex(shownTasks, "tasks:"):],
		"task list --json": run("task", "list", "--json").stdout} {
		if !strings.Contains(out, id) || !strings.Contains(out, "waiting for review") {
			t.Errorf("%s does not say the finished task waits for review:\n%s", what, out)
		}
	}
	if r := run("task", "merge", id); r.code != 0 {
		t.Fatalf("task merge: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	issueTasks := run("issue", "show", first).stdout
	issueTasks = issueTasks[strings.LastIndex(issueTasks, "tasks:"):]
	for args, out := range map[string]string{"task list": run("task", "list").stdout, "issue show's tasks": issueTasks} {
		if !strings.Contains(out, "command") || strings.Contains(out, "COMMAND") {
			t.Errorf("%s names the agent otherwise than --agent:\n%s", args, out)
		}
	}
	shown := run("task", "show", id).stdout
	if !strings.Contains(shown, "(merged)") || strings.Contains(shown, "0 commits") {
		t.Errorf("a merged task's report:\n%s", shown)
	}
}
