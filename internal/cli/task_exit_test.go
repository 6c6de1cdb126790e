package cli_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// pathWithout is a PATH holding only git and sh: no agent CLI is installed
// on it, whatever the machine has.
func pathWithout(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{"git", "sh"} {
		p, err := exec.LookPath(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := os.Symlink(p, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	return "PATH=" + dir
}

// An agent CLI that is not installed is a missing prerequisite (exit 6),
// not an unreachable store (5), and the hint installs the pinned version;
// the issue is left as it was.
func TestTaskStartWithoutTheAgentCLIExits6(t *testing.T) {
	dir, env, first, _ := taskRepo(t)
	env = append(env, pathWithout(t))
	r := runMain(t, dir, env, "", "task", "start", first, "--agent", "gemini")
	if r.code != 6 {
		t.Fatalf("exit %d, want 6: %s%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "error: gemini is not installed") || !strings.Contains(r.stderr, "hint: npm install -g @google/gemini-cli@0.61.0") {
		t.Errorf("stderr: %s", r.stderr)
	}
	if st := runMain(t, dir, env, "", "issue", "show", first, "--json").stdout; !strings.Contains(st, `"status": "open"`) {
		t.Errorf("the issue changed: %s", st)
	}
	r = runMain(t, dir, env, "", "run", "--agent", "codex", "--json")
	if r.code != 6 || !strings.Contains(r.stderr, `"code": "unavailable"`) || !strings.Contains(r.stderr, "@openai/codex@0.169.0") {
		t.Errorf("run --agent codex: exit %d: %s", r.code, r.stderr)
	}
}

// Merging a task that changed nothing is a request that cannot succeed as
// asked (exit 2), not a conflict (4); the hint names the CLI's command.
// It runs the binary: the task commands' exit statuses as a shell sees
// them, and a task started by one process and merged by another.
func TestTaskMergeOfNoChangeExits2(t *testing.T) {
	dir, env, first, _ := taskRepo(t)
	r := runBinAt(t, dir, env, "", "task", "start", first, "--agent", "command", "--command", "true", "--json")
	if r.code != 0 {
		t.Fatalf("task start: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	id := jsonField(t, r.stdout, "id")
	r = runBinAt(t, dir, env, "", "task", "merge", id)
	if r.code != 2 {
		t.Fatalf("exit %d, want 2: %s%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "nothing to merge") || !strings.Contains(r.stderr, "hint: the agent made no change; end the task with sudocode task end "+id) {
		t.Errorf("stderr: %s", r.stderr)
	}
}

// jsonField is a string field of a JSON object.
func jsonField(t *testing.T, raw, key string) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(raw), &m); err != nil {
		t.Fatalf("not a JSON object: %v: %s", err, raw)
	}
	s, _ := m[key].(string)
	return s
}

// A follow-up on a task whose agent CLI is no longer installed is refused
// the same way, before the task changes.
func TestTaskFollowUpWithoutTheAgentCLIExits6(t *testing.T) {
	dir, env, first, _ := taskRepo(t)
	stand := t.TempDir()
	if err := os.WriteFile(filepath.Join(stand, "gemini"), []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := runMain(t, dir, append(env, "PATH="+stand+string(os.PathListSeparator)+os.Getenv("PATH")), "", "task", "start", first, "--agent", "gemini", "--json")
	id := jsonField(t, r.stdout, "id")
	if id == "" {
		t.Fatalf("task start with a stand-in gemini: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	r = runMain(t, dir, append(env, pathWithout(t)), "", "task", "follow-up", id, "Try again.")
	if r.code != 6 || !strings.Contains(r.stderr, "gemini is not installed") {
		t.Errorf("follow-up: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
}
