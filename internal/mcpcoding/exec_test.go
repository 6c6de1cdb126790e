package mcpcoding_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/mcpcoding"
	"github.com/sudocode/sudocode/internal/proctest"
	"github.com/sudocode/sudocode/internal/testkit"
	"github.com/sudocode/sudocode/internal/workspace/procs"
)

// The exec tools end to end (docs/coding-tools.md#exec_command to
// #kill_session, #command-policy): the SDK client over HTTP (an in-process
// server) and over stdio (the built binary).

func init() {
	codeCategories["PERMISSION_REQUIRED"] = "permission"
	codeCategories["SESSION_NOT_FOUND"] = "not_found"
	codeCategories["SESSION_CLOSED"] = "runtime"
}

// marker is a unique sleep argument, to find a command's processes.
func marker() string { return fmt.Sprintf("300.%d", rand.IntN(1e9)) }

func wantProcs(t *testing.T, arg string, n int) {
	t.Helper()
	if !testkit.Eventually(5*time.Second, func() bool { return proctest.WithArg(arg) >= n }) {
		t.Fatalf("want %d processes with %s, have %d", n, arg, proctest.WithArg(arg))
	}
}

func wantNoProcs(t *testing.T, arg string, d time.Duration) {
	t.Helper()
	if !testkit.Eventually(d, func() bool { return proctest.WithArg(arg) == 0 }) {
		t.Fatalf("%d processes with %s left after %v", proctest.WithArg(arg), arg, d)
	}
}

func canonical(t *testing.T, dir string) string {
	t.Helper()
	c, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// wantNoKeys asserts that the snapshot omits fields.
func wantNoKeys(t *testing.T, sc map[string]any, keys ...string) {
	t.Helper()
	for _, k := range keys {
		if _, has := sc[k]; has {
			t.Fatalf("%s present: %v", k, sc)
		}
	}
}

// pollUntilEnd polls a session until it is no longer running and returns
// the last snapshot with all the stdout seen.
func pollUntilEnd(t *testing.T, s *toolSession, id string) (map[string]any, string) {
	t.Helper()
	var out strings.Builder
	for i := 0; i < 50; i++ {
		sc := s.ok(t, "write_stdin", map[string]any{"session_id": id, "yield_time_ms": 2000})
		out.WriteString(sc["stdout"].(string))
		if sc["status"] != "running" {
			return sc, out.String()
		}
	}
	t.Fatalf("session %s still running", id)
	return nil, ""
}

func TestExecCommand(t *testing.T) {
	t.Parallel()
	setup := func(t *testing.T) string {
		dir := freshDir(map[string]string{"a.txt": "a\n", "sub/b.txt": "b\n"})(t)
		symlink(t, os.TempDir(), filepath.Join(dir, "out"))
		return dir
	}
	runToolCases(t, setup, []toolCase{
		{"exited", func(t *testing.T, s *toolSession) {
			begin := time.Now()
			sc := s.ok(t, "exec_command", map[string]any{"cmd": "echo hi; echo err >&2; exit 3", "yield_time_ms": 10000})
			took := time.Since(begin)
			wantFields(t, sc, map[string]any{"status": "exited", "exit_code": 3, "timed_out": false, "stdout": "hi\n", "stderr": "err\n",
				"stdout_truncated": false, "stderr_truncated": false, "truncated": false, "stdout_dropped_bytes": 0,
				"stdout_omitted_bytes": 0, "stderr_dropped_bytes": 0, "stderr_omitted_bytes": 0, "warnings": []any{}})
			wantNoKeys(t, sc, "session_id", "signal")
			// The command's time is within the call's, whatever the machine's speed.
			if ms := num(t, sc["elapsed_ms"]); ms < 0 || int64(ms) > took.Milliseconds() {
				t.Fatalf("elapsed_ms %d, in a call of %v", ms, took)
			}
		}},
		{"signalled", func(t *testing.T, s *toolSession) {
			sc := s.ok(t, "exec_command", map[string]any{"cmd": "kill -TERM $$", "yield_time_ms": 10000})
			wantFields(t, sc, map[string]any{"status": "exited", "exit_code": -15, "signal": "SIGTERM"})
		}},
		{"stdin", func(t *testing.T, s *toolSession) {
			sc := s.ok(t, "exec_command", map[string]any{"cmd": "wc -l", "stdin": "1\n2\n3\n", "yield_time_ms": 10000})
			if strings.TrimSpace(sc["stdout"].(string)) != "3" {
				t.Fatalf("%v", sc)
			}
		}},
		{"workdir", func(t *testing.T, s *toolSession) {
			sc := s.ok(t, "exec_command", map[string]any{"cmd": "pwd; cat b.txt", "workdir": "sub", "yield_time_ms": 10000})
			if sc["stdout"] != filepath.Join(canonical(t, s.dir), "sub")+"\nb\n" {
				t.Fatalf("%v", sc["stdout"])
			}
			sc = s.ok(t, "exec_command", map[string]any{"cmd": "cat a.txt", "workdir": "", "yield_time_ms": 10000})
			if sc["stdout"] != "a\n" {
				t.Fatalf("%v", sc["stdout"])
			}
		}},
		{"workdir rejected", func(t *testing.T, s *toolSession) {
			for workdir, code := range map[string]string{"missing": "NOT_FOUND", "a.txt": "NOT_A_DIRECTORY", "/etc": "ABSOLUTE_PATH_DENIED",
				"sub/../..": "PATH_OUTSIDE_WORKSPACE", "out": "SYMLINK_ESCAPE", "a\x00b": "INVALID_ARGUMENT"} {
				sc := s.call(t, "exec_command", map[string]any{"cmd": "true", "workdir": workdir})
				wantToolError(t, sc, code)
				if sc["status"] != "rejected" {
					t.Fatalf("workdir %q: status %v", workdir, sc["status"])
				}
			}
		}},
		{"permission required", func(t *testing.T, s *toolSession) {
			for _, c := range []struct {
				cmd, permission string
				grantable       bool
			}{
				{"curl https://example.com", "network", true},
				{"cat /etc/hosts", "filesystem_escape", false},
				{"rm -rf sub", "destructive_command", true},
				{"echo $(id)", "shell_expansion", true},
			} {
				sc := s.call(t, "exec_command", map[string]any{"cmd": c.cmd})
				e := wantToolError(t, sc, "PERMISSION_REQUIRED")
				if sc["status"] != "permission_required" {
					t.Fatalf("%s: status %v", c.cmd, sc["status"])
				}
				want := map[string]any{"tool_name": "exec_command", "permission": c.permission, "status": "required", "retryable": c.grantable}
				wantFields(t, sc, map[string]any{"permission_request": want, "warnings": []any{}})
				wantFields(t, e, map[string]any{"permission_request": want})
				if e["details"].(map[string]any)["permission"] != c.permission {
					t.Fatalf("%s: details %v", c.cmd, e["details"])
				}
			}
			if existsWS(s, "sub") == false {
				t.Fatal("the refused rm ran")
			}
		}},
		{"running then polled", func(t *testing.T, s *toolSession) {
			sc := s.ok(t, "exec_command", map[string]any{"cmd": "echo one; sleep 0.4; echo two", "yield_time_ms": 100})
			wantFields(t, sc, map[string]any{"status": "running", "timed_out": false})
			wantNoKeys(t, sc, "exit_code", "signal")
			id := sc["session_id"].(string)
			if len(id) < 22 || strings.ContainsAny(id, "+/=") {
				t.Fatalf("session id %q", id)
			}
			last, out := pollUntilEnd(t, s, id)
			wantFields(t, last, map[string]any{"status": "exited", "exit_code": 0, "session_id": id})
			wantNoKeys(t, last, "elapsed_ms")
			if out = sc["stdout"].(string) + out; out != "one\ntwo\n" {
				t.Fatalf("output %q", out)
			}
			// Exited sessions stay readable until killed.
			wantFields(t, s.ok(t, "write_stdin", map[string]any{"session_id": id, "yield_time_ms": 0}),
				map[string]any{"status": "exited", "stdout": ""})
			e := s.fail(t, "write_stdin", map[string]any{"session_id": id, "chars": "x"}, "SESSION_CLOSED")
			_ = e
			k := s.ok(t, "kill_session", map[string]any{"session_id": id})
			wantFields(t, k, map[string]any{"killed": false, "status": "exited", "exit_code": 0, "session_id": id})
			s.fail(t, "write_stdin", map[string]any{"session_id": id}, "SESSION_NOT_FOUND")
			s.fail(t, "kill_session", map[string]any{"session_id": id}, "SESSION_NOT_FOUND")
		}},
		{"stdin closed", func(t *testing.T, s *toolSession) {
			sc := s.ok(t, "exec_command", map[string]any{"cmd": "sleep 5", "yield_time_ms": 0})
			id := sc["session_id"].(string)
			s.fail(t, "write_stdin", map[string]any{"session_id": id, "chars": "x"}, "SESSION_CLOSED")
			s.ok(t, "kill_session", map[string]any{"session_id": id, "signal": "KILL"})
			s.fail(t, "write_stdin", map[string]any{"session_id": "nope", "chars": "x"}, "SESSION_NOT_FOUND")
		}},
		{"timeout", func(t *testing.T, s *toolSession) {
			// The command would run on past the yield: a timeout status is
			// the timeout's doing, however slow the machine.
			sc := s.ok(t, "exec_command", map[string]any{"cmd": "echo started; sleep 30", "timeout_ms": 300, "yield_time_ms": 20000})
			wantFields(t, sc, map[string]any{"status": "timeout", "timed_out": true, "exit_code": -15, "signal": "SIGTERM", "stdout": "started\n"})
		}},
		{"truncation", func(t *testing.T, s *toolSession) {
			sc := s.ok(t, "exec_command", map[string]any{"cmd": "seq 1 3000; seq 1 3000 >&2", "max_output_bytes": 10, "yield_time_ms": 10000})
			wantFields(t, sc, map[string]any{"stdout": "2999\n3000\n", "stdout_truncated": true, "stdout_truncated_by": "bytes",
				"stderr_truncated": true, "truncated": true, "stdout_omitted_bytes": 0})
			wantWarning(t, sc, "stdout truncated")
			sc = s.ok(t, "exec_command", map[string]any{"cmd": "seq 1 2500", "yield_time_ms": 10000})
			if out := sc["stdout"].(string); !strings.HasPrefix(out, "501\n") || sc["stdout_truncated_by"] != "lines" {
				t.Fatalf("%.20q… %v", out, sc["stdout_truncated_by"])
			}
		}},
		{"kill", func(t *testing.T, s *toolSession) {
			mk := marker()
			sc := s.ok(t, "exec_command", map[string]any{"cmd": "echo up; sleep " + mk + " & sleep " + mk, "yield_time_ms": 200})
			id := sc["session_id"].(string)
			wantProcs(t, mk, 2)
			k := s.ok(t, "kill_session", map[string]any{"session_id": id})
			wantFields(t, k, map[string]any{"killed": true, "status": "terminated", "exit_code": -15, "signal": "SIGTERM", "session_id": id})
			wantNoProcs(t, mk, 2*time.Second)
			s.fail(t, "kill_session", map[string]any{"session_id": id}, "SESSION_NOT_FOUND")

			sc = s.ok(t, "exec_command", map[string]any{"cmd": "echo up; sleep " + mk, "yield_time_ms": 200})
			wantProcs(t, mk, 1) // an INT between the shell's fork and the exec of sleep would be lost
			k = s.ok(t, "kill_session", map[string]any{"session_id": sc["session_id"], "signal": "INT"})
			wantFields(t, k, map[string]any{"killed": true, "status": "terminated", "exit_code": -2, "signal": "SIGINT"})
			wantNoProcs(t, mk, 2*time.Second)
		}},
		{"tty repl", func(t *testing.T, s *toolSession) {
			testkit.Runnable(t, "python3", "apt-get install -y python3", "-c", "pass")
			sc := s.ok(t, "exec_command", map[string]any{"cmd": "python3 -i -q", "tty": true, "yield_time_ms": 5000})
			wantFields(t, sc, map[string]any{"status": "running", "stderr": ""})
			id := sc["session_id"].(string)
			out := sc["stdout"].(string)
			for i := 0; !strings.Contains(out, "42") && i < 10; i++ {
				chars := ""
				if i == 0 {
					chars = "print(6*7)\n"
				}
				w := s.ok(t, "write_stdin", map[string]any{"session_id": id, "chars": chars, "yield_time_ms": 2000})
				out += w["stdout"].(string)
			}
			if !strings.Contains(out, "42") {
				t.Fatalf("REPL output %q", out)
			}
			w := s.ok(t, "write_stdin", map[string]any{"session_id": id, "chars": "raise SystemExit(5)\n", "yield_time_ms": 5000})
			if w["status"] == "running" {
				w, _ = pollUntilEnd(t, s, id)
			}
			wantFields(t, w, map[string]any{"status": "exited", "exit_code": 5})
			s.ok(t, "kill_session", map[string]any{"session_id": id})
		}},
	})
}

// TestExecEnvironment: the server's secrets never reach a command; HOME
// and TMPDIR are the workspace's private ones, outside it.
func TestExecEnvironment(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cs, _ := connectBinaryAt(t, dir, []string{"FOO_TOKEN=tok-1234567", "AWS_SECRET_ACCESS_KEY=aws-7654321", "SSH_AUTH_SOCK=/tmp/agent.sock",
		"LANG=C.UTF-8", "LD_PRELOAD="})
	s := newToolSession(t, cs, dir)
	sc := s.ok(t, "exec_command", map[string]any{"cmd": "env", "env": map[string]any{"MY_VAR": "v"}, "yield_time_ms": 10000})
	out := sc["stdout"].(string)
	for _, secret := range []string{"tok-1234567", "aws-7654321", "FOO_TOKEN", "AWS_SECRET", "SSH_AUTH_SOCK", "LD_PRELOAD", "USER="} {
		if strings.Contains(out, secret) {
			t.Fatalf("%s reached the command:\n%s", secret, out)
		}
	}
	state := procs.StateDir(canonical(t, dir), os.LookupEnv)
	for _, want := range []string{"HOME=" + filepath.Join(state, "home") + "\n", "TMPDIR=" + filepath.Join(state, "tmp") + "\n", "LANG=C.UTF-8\n", "MY_VAR=v\n", "PATH="} {
		if !strings.Contains(out, want) {
			t.Fatalf("no %q in:\n%s", want, out)
		}
	}
	// Caller variables with sensitive names are a policy matter.
	sc = s.call(t, "exec_command", map[string]any{"cmd": "env", "env": map[string]any{"API_KEY": "x"}})
	wantToolError(t, sc, "PERMISSION_REQUIRED")
	wantFields(t, sc["permission_request"].(map[string]any), map[string]any{"permission": "sensitive_env"})
}

func TestExecDangerousEnv(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := newToolSession(t, connectHTTPAt(t, dir, mcpcoding.Options{Dangerous: true}), dir)
	sc := s.ok(t, "exec_command", map[string]any{"cmd": "env", "env": map[string]any{"API_KEY": "x"}, "yield_time_ms": 10000})
	if !strings.Contains(sc["stdout"].(string), "API_KEY=x\n") {
		t.Fatalf("%v", sc["stdout"])
	}
	// Escapes stay refused.
	sc = s.call(t, "exec_command", map[string]any{"cmd": "cat /etc/hosts"})
	wantToolError(t, sc, "PERMISSION_REQUIRED")
}

// TestExecSandbox: in the box a command cannot write outside the
// workspace (even where the policy cannot see it: from a script) while
// it writes inside: a system directory is read-only, and the host's /tmp
// is not the box's; without Landlock the result says so.
func TestExecSandbox(t *testing.T) {
	t.Parallel()
	mk := marker()
	system := filepath.Join("/usr/local", "x-outside-"+mk)
	tmp := filepath.Join(os.TempDir(), "x-outside-"+mk)
	t.Cleanup(func() { os.Remove(system); os.Remove(tmp) })
	dir := freshDir(map[string]string{"escape.sh": "touch " + system + " && echo escaped\ntouch " + tmp + "\ntouch inside && echo inside\n"})(t)
	cs, _ := connectBinaryAt(t, dir, nil)
	s := newToolSession(t, cs, dir)
	sc := s.ok(t, "exec_command", map[string]any{"cmd": "sh escape.sh", "yield_time_ms": 10000})
	if !landlockAvailable() {
		wantWarning(t, sc, "Landlock")
		testkit.Missing(t, "Landlock is not available on this kernel (Linux 5.13 or later with landlock among the LSMs it boots with): the warning is there")
	}
	for _, p := range []string{system, tmp} {
		if _, err := os.Stat(p); err == nil {
			t.Fatalf("the command wrote %s outside the workspace: %v", p, sc)
		}
	}
	wantFields(t, sc, map[string]any{"stdout": "inside\n", "warnings": []any{}})
	if !strings.Contains(sc["stderr"].(string), system) || !existsWS(s, "inside") {
		t.Fatalf("%v", sc)
	}
}

// landlockAvailable asks the kernel for its Landlock ABI version.
func landlockAvailable() bool {
	// landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION)
	v, _, errno := syscall.Syscall(444, 0, 0, 1)
	return errno == 0 && int(v) >= 1
}

// TestExecDeadlineWithoutPolling: the server enforces timeout_ms on a
// session nobody polls, whole group included.
func TestExecDeadlineWithoutPolling(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cs, _ := connectBinaryAt(t, dir, nil)
	s := newToolSession(t, cs, dir)
	mk := marker()
	sc := s.ok(t, "exec_command", map[string]any{"cmd": "sleep " + mk + " & sleep " + mk, "timeout_ms": 500, "yield_time_ms": 0})
	id := sc["session_id"].(string)
	wantProcs(t, mk, 2)
	wantNoProcs(t, mk, 3*time.Second)
	w := s.ok(t, "write_stdin", map[string]any{"session_id": id})
	wantFields(t, w, map[string]any{"status": "timeout", "timed_out": true, "exit_code": -15, "signal": "SIGTERM"})
}

// TestExecHugeOutput: gigabyte-class output stays bounded: the call
// completes with the dropped bytes counted.
func TestExecHugeOutput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cs, _ := connectBinaryAt(t, dir, nil)
	s := newToolSession(t, cs, dir)
	const n = 128 << 20
	sc := s.ok(t, "exec_command", map[string]any{"cmd": fmt.Sprintf("yes | head -c %d", n), "yield_time_ms": 30000, "timeout_ms": 60000})
	wantFields(t, sc, map[string]any{"status": "exited", "exit_code": 0, "truncated": true, "stdout_truncated": true,
		"stdout_dropped_bytes": n - 1<<20, "stdout_omitted_bytes": n - 1<<20})
	if out := sc["stdout"].(string); out != strings.Repeat("y\n", 2000) || sc["stdout_truncated_by"] != "lines" {
		t.Fatalf("%d bytes, cut by %v", len(out), sc["stdout_truncated_by"])
	}
	wantWarning(t, sc, "dropped by the 1 MiB session buffer")
}

// TestExecCancelled: notifications/cancelled with params.session_id ends
// the session's process group and forgets the session.
func TestExecCancelled(t *testing.T) {
	t.Parallel()
	transports(t, mcpcoding.Options{}, func(t *testing.T, c client) {
		initialize(t, c)
		mk := marker()
		r := toolCall(t, c, "exec_command", map[string]any{"cmd": "sleep " + mk + " & sleep " + mk, "yield_time_ms": 0}).resultMap(t)
		id := r["structuredContent"].(map[string]any)["session_id"].(string)
		wantProcs(t, mk, 2)
		if out := c.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"session_id":%q}}`, id)); out != nil {
			t.Fatalf("a notification was answered: %s", out)
		}
		wantNoProcs(t, mk, 2*time.Second)
		r = toolCall(t, c, "write_stdin", map[string]any{"session_id": id}).resultMap(t)
		if e := r["structuredContent"].(map[string]any)["error"].(map[string]any); e["code"] != "SESSION_NOT_FOUND" {
			t.Fatalf("%v", e)
		}
	})
}

// TestExecShutdownKillsSessions: when the binary stops (stdin EOF, or
// SIGTERM) the process groups of its commands go with it.
func TestExecShutdownKillsSessions(t *testing.T) {
	t.Parallel()
	t.Run("eof", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		cmd := exec.Command(binPath, "--stdio", "--workspace", dir)
		cmd.Env = childEnv()
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		cs, err := sdkClient().Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatal(err)
		}
		mk := marker()
		s := newToolSession(t, cs, dir)
		s.ok(t, "exec_command", map[string]any{"cmd": "sleep " + mk + " & sleep " + mk, "yield_time_ms": 0})
		s.ok(t, "exec_command", map[string]any{"cmd": "python3 -i -q", "tty": true, "yield_time_ms": 0})
		wantProcs(t, mk, 2)
		if err := cs.Close(); err != nil {
			t.Fatal(err)
		}
		wantNoProcs(t, mk, 3*time.Second)
	})
	t.Run("sigterm", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		cmd := exec.Command(binPath, "--stdio", "--workspace", dir)
		cmd.Env = childEnv()
		in, _ := cmd.StdinPipe()
		outPipe, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		out := bufio.NewScanner(outPipe)
		mk := marker()
		for i, msg := range []any{
			map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{"protocolVersion": mcpcoding.ProtocolVersion}},
			map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": map[string]any{"name": "exec_command",
				"arguments": map[string]any{"cmd": "trap '' TERM; sleep " + mk + " & sleep " + mk, "yield_time_ms": 0}}},
		} {
			b, _ := json.Marshal(msg)
			io.WriteString(in, string(b)+"\n")
			if !out.Scan() {
				t.Fatalf("no answer to message %d", i)
			}
		}
		wantProcs(t, mk, 2)
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("the server did not stop on SIGTERM")
		}
		wantNoProcs(t, mk, 2*time.Second) // SIGTERM was ignored: SIGKILL came a second later
	})
}

// TestAllowRootExposingCredentialsRefused: an extra exec root that would
// let commands read a credential store stops the server at start.
func TestAllowRootExposingCredentialsRefused(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, ".ssh"), 0o700)
	for _, root := range []string{home, filepath.Join(home, ".ssh")} {
		cmd := exec.Command(binPath, "--stdio", "--workspace", t.TempDir())
		cmd.Env = childEnv("HOME="+home, "CODING_TOOLS_MCP_EXEC_ALLOW_ROOTS="+root)
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), "credential store") || !strings.Contains(string(out), ".ssh") {
			t.Fatalf("allow root %s: %v %s", root, err, out)
		}
	}
}
