package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `sudocode task start` refuses an untrusted .sudocode/agent.json with
// its commands and `sudocode trust`; `sudocode trust --show` shows them,
// `sudocode trust` trusts the file, after which the setup runs, and
// `--revoke` takes the trust back.
func TestTrustCommand(t *testing.T) {
	dir, env, first, _ := taskRepo(t)
	run := func(args ...string) result { return runMain(t, dir, env, "", args...) }
	mark := filepath.Join(t.TempDir(), "setup-ran")
	settings := `{"setup": "touch ` + mark + ` 2>/dev/null; echo set up", "rulesets": []}`
	if err := os.WriteFile(filepath.Join(dir, ".sudocode", "agent.json"), []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}

	r := run("task", "start", first, "--agent", "command", "--command", "true")
	if r.code != 4 || !strings.Contains(r.stderr, "not trusted") || !strings.Contains(r.stderr, "setup: touch "+mark+" 2>/dev/null; echo set up") || !strings.Contains(r.stderr, "sudocode trust") {
		t.Fatalf("task start with an untrusted setup: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(mark); !os.IsNotExist(err) {
		t.Fatalf("the untrusted setup ran")
	}

	r = run("trust", "--show")
	if r.code != 0 || !strings.Contains(r.stdout, "setup") || !strings.Contains(r.stdout, "touch "+mark) || !strings.Contains(r.stdout, "not trusted") {
		t.Fatalf("trust --show: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = run("trust", "--show", "--json")
	var pt struct {
		Project, File, State, SHA256 string
		Commands                     []struct{ Setting, Command string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &pt); err != nil || pt.State != "untrusted" || len(pt.Commands) != 1 || pt.SHA256 == "" {
		t.Fatalf("trust --show --json: %v\n%s%s", err, r.stdout, r.stderr)
	}

	r = run("trust", filepath.Join(dir, "sub-does-not-matter", ".."))
	if r.code != 0 || !strings.Contains(r.stdout, "touch "+mark) || !strings.Contains(r.stdout, "trusted") {
		t.Fatalf("trust: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = run("task", "start", first, "--agent", "command", "--command", "true", "--json")
	var task struct {
		ID, Status string
		Error      any
	}
	if err := json.Unmarshal([]byte(r.stdout), &task); r.code != 0 || err != nil || task.Error != nil {
		t.Fatalf("task start once trusted: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r = run("task", "logs", task.ID); !strings.Contains(r.stdout, "set up") {
		t.Errorf("the trusted setup did not run:\n%s%s", r.stdout, r.stderr)
	}
	if _, err := os.Stat(mark); err == nil {
		t.Errorf("the setup reached %s, outside its box", mark)
	}

	r = run("trust", "--revoke", "--json")
	if r.code != 0 || !strings.Contains(r.stdout, `"state":"untrusted"`) && !strings.Contains(r.stdout, `"state": "untrusted"`) {
		t.Fatalf("trust --revoke: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r = run("trust", "--show"); !strings.Contains(r.stdout, "not trusted") {
		t.Errorf("after --revoke:\n%s", r.stdout)
	}
	if r = run("trust", "--show", "--revoke"); r.code != 2 {
		t.Errorf("--show with --revoke: exit %d", r.code)
	}
}
