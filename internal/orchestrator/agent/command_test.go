package agent

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// mycmdScript echoes its stdin and $SUDOCODE_TASK_INSTRUCTIONS, then exits
// with $CODE.
const mycmdScript = `
echo "args: $*"
echo "stdin:"
cat "$log/stdin"
echo
echo "env: $SUDOCODE_TASK_INSTRUCTIONS"
echo "pwd: $PWD"
echo "oops" >&2
exit "${CODE:-0}"
`

func TestCommandRun(t *testing.T) {
	logDir := standIn(t, "mycmd", mycmdScript)
	dir := t.TempDir()
	a, _ := Lookup("command")
	spec := RunSpec{Instructions: "line 1\nline 2", Dir: dir, Config: map[string]any{"command": []any{"mycmd", "--flag", "two words"}}}
	res := runAgent(t, a, spec, logDir)
	if !slices.Equal(res.inv.Argv, []string{"mycmd", "--flag", "two words"}) || res.inv.Stdin != "line 1\nline 2" {
		t.Errorf("invocation = %+v", res.inv)
	}
	if !slices.Contains(res.inv.Env, EnvInstructions+"=line 1\nline 2") {
		t.Errorf("env = %q", res.inv.Env)
	}
	var got []string
	for _, e := range res.events[:len(res.events)-1] {
		if e.Kind != KindLog {
			t.Errorf("event %+v is not a log", e)
		}
		got = append(got, e.Text)
	}
	want := []string{"args: --flag two words", "stdin:", "line 1", "line 2", "env: line 1", "line 2", "pwd: " + dir}
	if !slices.Equal(got, want) {
		t.Errorf("lines = %q, want %q", got, want)
	}
	c := completion(t, res.events, true)
	if c.Data["exit_code"] != 0 || res.parser.SessionID() != "" {
		t.Errorf("completion = %+v", c)
	}
}

func TestCommandFailure(t *testing.T) {
	logDir := standIn(t, "mycmd", mycmdScript)
	res := runAgent(t, Command{}, RunSpec{Instructions: "x", Dir: t.TempDir(), Config: map[string]any{"command": []string{"mycmd"}}}, logDir, "CODE=3")
	if res.exit != 3 {
		t.Fatalf("exit = %d", res.exit)
	}
	if c := completion(t, res.events, false); c.Data["exit_code"] != 3 || c.Text != "exited with code 3" {
		t.Errorf("completion = %+v", c)
	}
}

func TestCommandCheck(t *testing.T) {
	standIn(t, "mycmd", mycmdScript)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "run.sh"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, wantErr string
		cfg           map[string]any
	}{
		{"missing", "config.command", nil},
		{"empty list", "config.command", map[string]any{"command": []any{}}},
		{"empty name", "config.command", map[string]any{"command": []string{""}}},
		{"not a list", "want a list", map[string]any{"command": "make test"}},
		{"not strings", "want a string", map[string]any{"command": []any{"make", 1}}},
		{"not found", "not found", map[string]any{"command": []any{"no-such-binary-sudocode"}}},
		{"on PATH", "", map[string]any{"command": []any{"mycmd", "x"}}},
		{"relative to worktree", "", map[string]any{"command": []any{"./run.sh"}}},
		{"absolute", "", map[string]any{"command": []any{filepath.Join(dir, "run.sh")}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := RunSpec{Dir: dir, Config: tc.cfg}
			err := Command{}.Check(spec)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("Check: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("Check error = %v, want %q", err, tc.wantErr)
			}
			if tc.wantErr != "not found" {
				if _, err := (Command{}).Invocation(spec); err == nil {
					t.Errorf("Invocation accepted %v", tc.cfg)
				}
			}
		})
	}
}

// Instructions past Linux's per-string env limit are cut in the env (with a
// marker) but stay whole on stdin.
func TestCommandHugeInstructions(t *testing.T) {
	huge := strings.Repeat("é", maxEnvInstructions) // 2 bytes each
	inv, err := Command{}.Invocation(RunSpec{Instructions: huge, Config: map[string]any{"command": []string{"true"}}})
	if err != nil {
		t.Fatal(err)
	}
	if inv.Stdin != huge || !slices.Contains(inv.Env, EnvInstructions+"_TRUNCATED=1") {
		t.Fatalf("env/stdin not as expected")
	}
	for _, kv := range inv.Env {
		if v, ok := strings.CutPrefix(kv, EnvInstructions+"="); ok && (len(v) > maxEnvInstructions || !strings.HasPrefix(huge, v) || len(v)%2 != 0) {
			t.Errorf("env value len %d", len(v))
		}
	}
}

// A program is looked up on the PATH given, not on the process's, with
// exec's errors.
func TestLookPathOnTheGivenPath(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "sudocode-test-prog")
	if err := os.WriteFile(prog, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if p, err := LookPath("sudocode-test-prog", "/nonexistent"+string(os.PathListSeparator)+dir); p != prog || err != nil {
		t.Errorf("LookPath = %q, %v; want %q", p, err, prog)
	}
	_, err := LookPath("sudocode-test-prog", "/nonexistent")
	_, want := exec.LookPath("sudocode-test-prog")
	if err == nil || want == nil || err.Error() != want.Error() {
		t.Errorf("LookPath of a missing program: %v, want exec's %v", err, want)
	}
}
