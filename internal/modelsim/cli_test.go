package modelsim

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/testkit"
)

// Each real CLI, run headless the way the orchestrator's adapters run it
// (internal/orchestrator/agent), in a fresh git repository against the
// simulator: the scripted model writes hello.txt and answers; a second run
// resumes the session and must send the model the first turn.

const (
	firstPrompt = "Create hello.txt, then say what you did.\n" +
		"@sim write hello.txt \"hi from the simulator\\n\"\n" +
		"@sim text \"I wrote hello.txt with a greeting, and nothing else changed.\"\n"
	firstAnswer  = "I wrote hello.txt with a greeting, and nothing else changed."
	secondPrompt = "What did you do before?\n@sim text \"Before, I wrote hello.txt.\"\n"
	secondAnswer = "Before, I wrote hello.txt."
	helloContent = "hi from the simulator\n"
)

// cliCase is how one CLI is driven and read.
type cliCase struct {
	setup      func(testing.TB, *Server) []string
	argv       func(dir, resume string) []string // the adapter's argv
	fullAccess func(argv []string) []string      // the argv that lets the shell tool run, if it differs
	writeTool  string                            // the file-write tool the simulator must pick
	shellTool  string                            // and the shell tool
	session    func(events []map[string]any) string
	answer     func(events []map[string]any) string // the final text of the run
}

// startCase starts a simulator and a repository for c, logging each
// request the simulator saw when the test ends (with bodies on failure).
func startCase(t *testing.T, c cliCase) (*Server, []string, string) {
	sim := Start(t)
	env := c.setup(t, sim)
	dir := testkit.Repo(t)
	t.Cleanup(func() {
		for _, r := range sim.Requests() {
			t.Logf("%s %s api=%q tools=%d calls=%v", r.Method, r.Path, r.API, len(r.Tools), r.Calls)
			if t.Failed() {
				t.Logf("%.4000s", r.Body)
			}
		}
	})
	return sim, env, dir
}

func runShellCase(t *testing.T, c cliCase) {
	sim, env, dir := startCase(t, c)
	argv := c.argv(dir, "")
	if c.fullAccess != nil {
		argv = c.fullAccess(argv)
	}
	ev := runCLI(t, env, dir, argv, "Run a command.\n@sim shell \"echo ran-by-shell > shell.txt\"\n@sim text \"The command ran.\"\n")
	if calls := sim.Calls(); len(calls) != 1 || calls[0] != c.shellTool {
		t.Errorf("the simulator called %v, want [%s]", calls, c.shellTool)
	}
	got, err := os.ReadFile(filepath.Join(dir, "shell.txt"))
	if err != nil || string(got) != "ran-by-shell\n" {
		t.Fatalf("shell.txt = %q, %v; want the command's output", got, err)
	}
	if a := c.answer(ev); !strings.Contains(a, "The command ran.") {
		t.Fatalf("final text = %q, want it to hold %q", a, "The command ran.")
	}
}

// runAPIErrorCase: a model call answered 400 ends the run with wantCode
// and the API's message in the JSON stream.
func runAPIErrorCase(t *testing.T, c cliCase, wantCode int) {
	_, env, dir := startCase(t, c)
	argv := c.argv(dir, "")
	code, stdout, stderr := execCLI(t, env, dir, argv, "Fail now.\n@sim error 400\n")
	if code != wantCode || !strings.Contains(stdout, errorText(400)) || len(jsonLines(stdout)) == 0 {
		t.Fatalf("%s: exit %d (want %d), stdout (want JSON lines with %q):\n%s\nstderr:\n%s",
			strings.Join(argv, " "), code, wantCode, errorText(400), stdout, tail(stderr, 2000))
	}
}

func runWriteResumeCase(t *testing.T, c cliCase) {
	sim, env, dir := startCase(t, c)
	ev := runCLI(t, env, dir, c.argv(dir, ""), firstPrompt)
	if calls := sim.Calls(); len(calls) != 1 || calls[0] != c.writeTool {
		t.Errorf("the simulator called %v, want [%s]", calls, c.writeTool)
	}
	got, err := os.ReadFile(filepath.Join(dir, "hello.txt"))
	if err != nil || string(got) != helloContent {
		t.Fatalf("hello.txt = %q, %v; want %q", got, err, helloContent)
	}
	if a := c.answer(ev); !strings.Contains(a, firstAnswer) {
		t.Fatalf("first run's final text = %q, want it to hold %q", a, firstAnswer)
	}
	id := c.session(ev)
	if id == "" {
		t.Fatal("first run reported no session id")
	}
	for _, r := range sim.Requests() {
		for k, vs := range r.Header {
			if strings.Contains(strings.Join(vs, " "), SimKey) {
				t.Errorf("request %s %s was recorded with the API key in header %s", r.Method, r.Path, k)
			}
		}
		if strings.Contains(r.Path, SimKey) {
			t.Errorf("request path %s was recorded with the API key", r.Path)
		}
	}
	t.Logf("tools offered: %v", sim.Tools())
	if u := sim.Unknown(); len(u) > 0 {
		t.Logf("endpoints the simulator does not serve: %v", u)
	}

	before := len(sim.Requests())
	ev = runCLI(t, env, dir, c.argv(dir, id), secondPrompt)
	if a := c.answer(ev); !strings.Contains(a, secondAnswer) {
		t.Fatalf("resumed run's final text = %q, want it to hold %q", a, secondAnswer)
	}
	carried := false
	for _, r := range sim.Requests()[before:] {
		carried = carried || r.API != "" && bytes.Contains(r.Body, []byte("@sim write hello.txt")) &&
			bytes.Contains(r.Body, []byte(firstAnswer)) && bytes.Contains(r.Body, []byte(secondAnswer))
	}
	if !carried {
		t.Fatal("no model request of the resumed run carried the first turn (its prompt and answer)")
	}
}

// runCLI runs argv in dir with the prompt on stdin and returns the JSON
// lines of its stdout; a non-zero exit fails the test.
func runCLI(t *testing.T, env []string, dir string, argv []string, stdin string) []map[string]any {
	t.Helper()
	code, stdout, stderr := execCLI(t, env, dir, argv, stdin)
	if code != 0 {
		t.Fatalf("%s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(argv, " "), code, stdout, tail(stderr, 4000))
	}
	events := jsonLines(stdout)
	if len(events) == 0 {
		t.Fatalf("%s printed no JSON line\nstdout:\n%s\nstderr:\n%s", strings.Join(argv, " "), stdout, tail(stderr, 4000))
	}
	return events
}

// execCLI runs argv in dir with the prompt on stdin and returns its exit
// code and output; a run that cannot start or times out fails the test.
func execCLI(t *testing.T, env []string, dir string, argv []string, stdin string) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(3*time.Minute))
	defer cancel()
	path, err := LookPath(env, argv[0])
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, path, argv[1:]...)
	cmd.Args[0] = argv[0]
	cmd.Dir = dir
	cmd.Env = append(append([]string(nil), env...), "PWD="+dir)
	cmd.Stdin = strings.NewReader(stdin)
	cmd.WaitDelay = 5 * time.Second
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	err = cmd.Run()
	t.Logf("%s ran %s", strings.Join(argv, " "), time.Since(start).Round(time.Millisecond))
	var ee *exec.ExitError
	if err != nil && (!errors.As(err, &ee) || ctx.Err() != nil) {
		t.Fatalf("%s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(argv, " "), err, out.String(), tail(errOut.String(), 4000))
	}
	return cmd.ProcessState.ExitCode(), out.String(), errOut.String()
}

// jsonLines are the lines of out that hold a JSON object.
func jsonLines(out string) []map[string]any {
	var events []map[string]any
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) == nil {
			events = append(events, m)
		}
	}
	return events
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// str is m[key] as a string.
func str(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}

func obj(m map[string]any, key string) map[string]any {
	o, _ := m[key].(map[string]any)
	return o
}

var claudeCase = cliCase{
	setup: SetupClaude,
	argv: func(dir, resume string) []string {
		argv := []string{"claude", "-p", "--output-format", "stream-json", "--verbose", "--permission-mode", "acceptEdits"}
		if resume != "" {
			argv = append(argv, "--resume", resume)
		}
		return argv
	},
	session: func(ev []map[string]any) string { return str(ev[0], "session_id") },
	answer: func(ev []map[string]any) string {
		for _, e := range ev {
			if str(e, "type") == "result" {
				return str(e, "result")
			}
		}
		return ""
	},
	writeTool: "Write",
	shellTool: "Bash",
	// acceptEdits, the adapter's default, refuses Bash headless.
	fullAccess: func(argv []string) []string {
		out := append([]string(nil), argv...)
		for i := range out {
			if out[i] == "acceptEdits" {
				out[i] = "bypassPermissions"
			}
		}
		return out
	},
}

func TestClaudeCode(t *testing.T) {
	t.Run("write_resume", func(t *testing.T) { runWriteResumeCase(t, claudeCase) })
	t.Run("shell", func(t *testing.T) { runShellCase(t, claudeCase) })
	t.Run("api_error", func(t *testing.T) { runAPIErrorCase(t, claudeCase, 1) })
}

var codexCase = cliCase{
	setup: SetupCodex,
	argv: func(dir, resume string) []string {
		argv := []string{"codex", "exec", "--json", "--cd", dir, "--sandbox", "workspace-write", "-c", `approval_policy="never"`}
		if resume != "" {
			argv = append(argv, "resume", resume)
		}
		return argv
	},
	session: func(ev []map[string]any) string {
		for _, e := range ev {
			if str(e, "type") == "thread.started" {
				return str(e, "thread_id")
			}
		}
		return ""
	},
	answer: func(ev []map[string]any) string {
		last := ""
		for _, e := range ev {
			if it := obj(e, "item"); str(e, "type") == "item.completed" && str(it, "type") == "agent_message" {
				last = str(it, "text")
			}
		}
		return last
	},
	writeTool: "apply_patch",
	shellTool: "exec_command",
}

func TestCodex(t *testing.T) {
	t.Run("write_resume", func(t *testing.T) { runWriteResumeCase(t, codexCase) })
	t.Run("shell", func(t *testing.T) { runShellCase(t, codexCase) })
	t.Run("api_error", func(t *testing.T) { runAPIErrorCase(t, codexCase, 1) })
}

var geminiCase = cliCase{
	setup: func(t testing.TB, sim *Server) []string {
		return append(SetupGemini(t, sim), "GEMINI_CLI_TRUST_WORKSPACE=true")
	},
	argv: func(dir, resume string) []string {
		argv := []string{"gemini", "-p", "Carry out the instructions above.", "--output-format", "stream-json", "--approval-mode", "yolo", "--skip-trust"}
		if resume != "" {
			argv = append(argv, "--resume", resume)
		}
		return argv
	},
	session: func(ev []map[string]any) string {
		for _, e := range ev {
			if str(e, "type") == "init" {
				return str(e, "session_id")
			}
		}
		return ""
	},
	answer: func(ev []map[string]any) string {
		text := ""
		for _, e := range ev {
			if str(e, "type") == "message" && str(e, "role") == "assistant" {
				text += str(e, "content")
			}
		}
		return text
	},
	writeTool: "write_file",
	shellTool: "run_shell_command",
}

func TestGemini(t *testing.T) {
	t.Run("write_resume", func(t *testing.T) { runWriteResumeCase(t, geminiCase) })
	t.Run("shell", func(t *testing.T) { runShellCase(t, geminiCase) })
	t.Run("api_error", func(t *testing.T) { runAPIErrorCase(t, geminiCase, 144) })
}

var openCodeCase = cliCase{
	setup: SetupOpenCode,
	argv: func(dir, resume string) []string {
		argv := []string{"opencode", "run", "--format", "json", "--dir", dir, "--auto"}
		if resume != "" {
			argv = append(argv, "--session", resume)
		}
		return argv
	},
	session: func(ev []map[string]any) string {
		for _, e := range ev {
			if id := str(e, "sessionID"); id != "" {
				return id
			}
		}
		return ""
	},
	answer: func(ev []map[string]any) string {
		text := ""
		for _, e := range ev {
			if str(e, "type") == "text" {
				text += str(obj(e, "part"), "text")
			}
		}
		return text
	},
	writeTool: "write",
	shellTool: "bash",
}

func TestOpenCode(t *testing.T) {
	t.Run("write_resume", func(t *testing.T) { runWriteResumeCase(t, openCodeCase) })
	t.Run("shell", func(t *testing.T) { runShellCase(t, openCodeCase) })
}
