package cli_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/testkit"
)

// gitLogging puts a git first on env's PATH that appends its arguments
// (one line per call) to the file it returns, then runs the real git.
func gitLogging(t *testing.T, env []string) (newEnv []string, logFile string) {
	t.Helper()
	real, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	logFile = filepath.Join(t.TempDir(), "git.log")
	script := "#!/bin/sh\nprintf '%s\\n' \"$*\" >> '" + logFile + "'\nexec '" + real + "' \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, kv := range env {
		if p, ok := strings.CutPrefix(kv, "PATH="); ok {
			kv = "PATH=" + bin + string(os.PathListSeparator) + p
		}
		newEnv = append(newEnv, kv)
	}
	return newEnv, logFile
}

// worktreeCalls returns the logged git calls with the worktree subcommand.
func worktreeCalls(t *testing.T, logFile string) []string {
	t.Helper()
	return gitCalls(t, logFile, "worktree")
}

// gitCalls returns the logged git calls with any of the subcommands.
func gitCalls(t *testing.T, logFile string, subcommands ...string) []string {
	t.Helper()
	b, err := os.ReadFile(logFile)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var calls []string
	for line := range strings.SplitSeq(string(b), "\n") {
		if fields := strings.Fields(line); slices.ContainsFunc(subcommands, func(c string) bool { return slices.Contains(fields, c) }) {
			calls = append(calls, line)
		}
	}
	return calls
}

// Reading tasks changes nothing: task list and task show neither prepare
// a worktree nor remove one (not even that of a finished task, which a
// task start or merge collects), and run no git worktree command at all.
func TestTaskReadingTouchesNoWorktree(t *testing.T) {
	dir, env, first, _ := taskRepo(t)
	r := runMain(t, dir, env, "", "task", "start", first, "--agent", "command", "--command",
		"echo hello > hello.txt && git add hello.txt && git commit -qm hello", "--json")
	if r.code != 0 {
		t.Fatalf("task start: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	var rep struct{ ID string }
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || rep.ID == "" {
		t.Fatalf("task start: %v %s", err, r.stdout)
	}
	before := testkit.Git(t, dir, "worktree", "list", "--porcelain")
	// A one-shot task start checks out no warm worktree for a next task
	// it will not start (nor leaves one half-done as it exits).
	if strings.Count(before, "worktree ") != 2 || !strings.Contains(before, "/"+rep.ID+"\n") {
		t.Fatalf("want the checkout and the task's worktree, got:\n%s", before)
	}

	// The reads run the binary: git is looked up on the PATH of the
	// process that runs it.
	logged, logFile := gitLogging(t, env)
	for _, args := range [][]string{
		{"task", "list"}, {"task", "list", "--json"},
		{"task", "show", rep.ID}, {"task", "show", rep.ID, "--json"}, {"task", "show", rep.ID, "--diff"},
	} {
		if r := runBinAt(t, dir, logged, "", args...); r.code != 0 {
			t.Fatalf("%v: exit %d: %s%s", args, r.code, r.stdout, r.stderr)
		}
		if calls := worktreeCalls(t, logFile); len(calls) > 0 {
			t.Errorf("%v ran git worktree commands: %q", args, calls)
		}
		// A finished task is shown as its run recorded it: its worktree is
		// not read again (without --diff): no temporary index, no count of
		// commits. (The sandboxed git calls do not pass through the logging
		// git; those that prepare them do.)
		if args[1] == "show" && !slices.Contains(args, "--diff") {
			if calls := gitCalls(t, logFile, "rev-list", "index"); len(calls) > 0 {
				t.Errorf("%v read the worktree again: %q", args, calls)
			}
		}
		if after := testkit.Git(t, dir, "worktree", "list", "--porcelain"); after != before {
			t.Fatalf("%v changed the worktrees:\nbefore\n%s\nafter\n%s", args, before, after)
		}
		_ = os.Remove(logFile)
	}
}
