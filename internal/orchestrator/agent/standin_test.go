package agent

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// standInPrelude records the argv (one per line), stdin and environment of
// a stand-in CLI into $STANDIN_LOG, and sets $resume to the value after
// --resume / --session / the codex "resume" subcommand.
const standInPrelude = `#!/bin/sh
log="${STANDIN_LOG:?}"
: > "$log/args"
for a in "$@"; do printf '%s\n' "$a" >> "$log/args"; done
cat > "$log/stdin"
env > "$log/env"
resume=""
prev=""
for a in "$@"; do
  case "$prev" in --resume|--session|resume) resume="$a";; esac
  prev="$a"
done
`

// standIn writes an executable named name into a fresh directory put first
// on PATH, and returns the directory its invocations are logged to.
func standIn(t *testing.T, name, body string) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("stand-in CLIs are shell scripts")
	}
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, name), []byte(standInPrelude+body), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	logDir := t.TempDir()
	t.Setenv("STANDIN_LOG", logDir)
	t.Setenv("STANDIN_FAIL", "")
	return logDir
}

type runResult struct {
	inv    Invocation
	events []Event
	parser Parser
	exit   int
	args   []string // argv[1:] as the stand-in saw it
	stdin  string
	env    string
}

// runAgent builds the invocation of spec, runs it like the orchestrator
// would (argv, cmd.Dir, env, stdin closed after the prompt) and feeds its
// stdout through a new parser.
func runAgent(t *testing.T, a Adapter, spec RunSpec, logDir string, extraEnv ...string) runResult {
	t.Helper()
	if err := a.Check(spec); err != nil {
		t.Fatalf("Check: %v", err)
	}
	inv, err := a.Invocation(spec)
	if err != nil {
		t.Fatalf("Invocation: %v", err)
	}
	cmd := exec.Command(inv.Argv[0], inv.Argv[1:]...)
	cmd.Dir = spec.Dir
	cmd.Env = append(append(os.Environ(), inv.Env...), extraEnv...)
	cmd.Stdin = strings.NewReader(inv.Stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := a.NewParser()
	var events []Event
	now := testNow
	r := bufio.NewReader(stdout)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			events = append(events, p.Line(bytes.TrimRight(line, "\r\n"), now)...)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	code := 0
	if err := cmd.Wait(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatalf("wait: %v (stderr %s)", err, stderr.String())
		}
		code = ee.ExitCode()
	}
	events = append(events, p.Finish(code, now)...)
	res := runResult{inv: inv, events: events, parser: p, exit: code}
	args, _ := os.ReadFile(filepath.Join(logDir, "args"))
	res.args = strings.Split(strings.TrimSuffix(string(args), "\n"), "\n")
	in, _ := os.ReadFile(filepath.Join(logDir, "stdin"))
	res.stdin = string(in)
	env, _ := os.ReadFile(filepath.Join(logDir, "env"))
	res.env = string(env)
	return res
}

func ofKind(events []Event, kind string) []Event {
	var out []Event
	for _, e := range events {
		if e.Kind == kind {
			out = append(out, e)
		}
	}
	return out
}

func kindsOf(events []Event) []string {
	out := make([]string, len(events))
	for i, e := range events {
		out[i] = e.Kind
	}
	return out
}

// completion asserts exactly one completion event, with the given success.
func completion(t *testing.T, events []Event, want bool) Event {
	t.Helper()
	cs := ofKind(events, KindCompletion)
	if len(cs) != 1 {
		t.Fatalf("want 1 completion, got %d: %v", len(cs), kindsOf(events))
	}
	if cs[0].Success == nil || *cs[0].Success != want {
		t.Fatalf("completion success = %v, want %v (%q)", cs[0].Success, want, cs[0].Text)
	}
	return cs[0]
}

// assertPromptOnStdin checks the prompt reached stdin and is absent from argv.
func assertPromptOnStdin(t *testing.T, res runResult, prompt string) {
	t.Helper()
	if res.inv.Stdin != prompt || res.stdin != prompt {
		t.Errorf("stdin = %q (invocation %q), want %q", res.stdin, res.inv.Stdin, prompt)
	}
	for _, a := range res.inv.Argv {
		if strings.Contains(a, prompt) {
			t.Errorf("prompt leaked into argv %q", res.inv.Argv)
		}
	}
	if !slices.Equal(res.args, res.inv.Argv[1:]) {
		t.Errorf("stand-in saw args %q, want %q", res.args, res.inv.Argv[1:])
	}
}

// flagValue returns the argument after flag in argv ("" if absent).
func flagValue(argv []string, flag string) string {
	i := slices.Index(argv, flag)
	if i < 0 || i+1 >= len(argv) {
		return ""
	}
	return argv[i+1]
}

func hasEnv(res runResult, kv string) bool {
	return slices.Contains(strings.Split(res.env, "\n"), kv)
}

// prompt is deliberately multi-line with shell and JSON metacharacters.
const testPrompt = "Fix the bug in main.go.\nDon't touch \"$HOME\" or `rm -rf`; {\"json\": true}"

var testNow = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
