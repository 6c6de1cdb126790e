package cli_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/testkit"
)

// badLines are lines a confused client (or a stray print) can put on a
// server's stdin, with the JSON-RPC error code each must be answered with.
var badLines = []struct {
	line string
	code int
}{
	{`NaN`, -32700},
	{`garbage`, -32700},
	{`{"jsonrpc":"2.0","id":2,"method":"ping"} trailing`, -32700},
	{`{"jsonrpc":"2.0","id":3,"method":"ping"`, -32700},
	{`[]`, -32600},
	{`{}`, -32600},
	{`7`, -32600},
	{`[{"jsonrpc":"2.0","id":4,"method":"ping"}]`, -32600},
	{`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, -32600},
}

// Every SDK server on stdio answers a line it cannot use with a JSON-RPC
// error (id null) and goes on: the valid request after the bad lines is
// answered, and the process exits 0 only when its stdin closes. (Before,
// the first bad line ended the process, and with it the agent server's
// running tasks.)
func TestStdioServersSurviveBadLines(t *testing.T) {
	repo := serveRepo(t)
	for _, tc := range []struct {
		name string
		bin  func() string
		args []string
	}{
		{"sudocode mcp", func() string { return sudocodeBin }, []string{"mcp"}},
		{"sudocode mcp rulesets", func() string { return sudocodeBin }, []string{"mcp", "rulesets", "--store", t.TempDir()}},
		{"mcp-ruleset-server", func() string { return rulesetServerBin }, []string{"--store", t.TempDir()}},
		{"sudocode mcp agent", func() string { return sudocodeBin }, []string{"mcp", "agent", "--project", repo, "--data", t.TempDir()}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(tc.bin(), tc.args...)
			cmd.Env = childEnv(t, "SUDOCODE_WORKING_DIR="+t.TempDir())
			stderr := &testkit.LockedBuffer{}
			cmd.Stderr = stderr
			stdin, _ := cmd.StdinPipe()
			stdout, _ := cmd.StdoutPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			t.Cleanup(func() { cmd.Process.Kill() })
			replies := make(chan string, 64)
			go func() {
				sc := bufio.NewScanner(stdout)
				for sc.Scan() {
					replies <- sc.Text()
				}
				close(replies)
				exited <- cmd.Wait()
			}()
			send := func(line string) {
				if _, err := io.WriteString(stdin, line+"\n"); err != nil {
					t.Fatalf("write %q: %v\nstderr:\n%s", line, err, stderr)
				}
			}
			type reply struct {
				ID     json.RawMessage `json:"id"`
				Result json.RawMessage `json:"result"`
				Error  *struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			next := func(what string) reply {
				t.Helper()
				select {
				case line, ok := <-replies:
					if !ok {
						t.Fatalf("%s: the server closed stdout (exited: %v)\nstderr:\n%s", what, <-exited, stderr)
					}
					var r reply
					if err := json.Unmarshal([]byte(line), &r); err != nil {
						t.Fatalf("%s: stdout line is not JSON: %q", what, line)
					}
					return r
				case <-time.After(testkit.Scale(20 * time.Second)):
					t.Fatalf("%s: no reply within %v\nstderr:\n%s", what, testkit.Scale(20*time.Second), stderr)
				}
				return reply{}
			}

			send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
			if r := next("initialize"); string(r.ID) != "1" || r.Error != nil {
				t.Fatalf("initialize: %+v", r)
			}
			send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			for _, bad := range badLines {
				send(bad.line)
				r := next(fmt.Sprintf("bad line %q", bad.line))
				if r.Error == nil || r.Error.Code != bad.code || string(r.ID) != "null" || r.Error.Message == "" {
					t.Errorf("bad line %q: reply id %s error %+v; want error %d with id null", bad.line, r.ID, r.Error, bad.code)
				}
			}
			send(`{"jsonrpc":"2.0","id":99,"method":"ping"}`)
			if r := next("ping after the bad lines"); string(r.ID) != "99" || r.Error != nil || string(r.Result) != "{}" {
				t.Errorf("ping after the bad lines: %+v", r)
			}
			stdin.Close()
			select {
			case <-replies:
			case <-time.After(testkit.Scale(10 * time.Second)):
			}
			select {
			case err := <-exited:
				if err != nil {
					t.Errorf("exit after stdin closed: %v\nstderr:\n%s", err, stderr)
				}
			case <-time.After(testkit.Scale(10 * time.Second)):
				t.Errorf("still running %v after stdin closed\nstderr:\n%s", testkit.Scale(10*time.Second), stderr)
			}
			if strings.Contains(stderr.String(), "panic") {
				t.Errorf("stderr:\n%s", stderr)
			}
		})
	}
}
