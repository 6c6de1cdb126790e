package cli_test

// The tracker's MCP server as agents run it: `sudocode mcp` over stdio.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/testkit"
	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/trackertest"
)

// connectTracker starts `sudocode mcp` in dir (none: the test's) with env.
func connectTracker(t *testing.T, dir string, env []string) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(20*time.Second))
	defer cancel()
	cmd := exec.Command(sudocodeBin, "mcp")
	cmd.Dir, cmd.Env = dir, env
	stderr := &testkit.LockedBuffer{}
	cmd.Stderr = stderr
	session, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "0"}, nil).Connect(ctx, stdioTransport(cmd), nil)
	if err != nil {
		t.Fatalf("connect to sudocode mcp: %v\nstderr:\n%s", err, stderr)
	}
	t.Cleanup(func() { closeStdio(t, "sudocode mcp", session, cmd, stderr) })
	return session
}

// jsonCall calls a tool that must succeed and decodes its JSON text.
func jsonCall(t *testing.T, s *mcp.ClientSession, tool string, args map[string]any) map[string]any {
	t.Helper()
	text, isErr := callText(t, s, tool, args)
	if isErr {
		t.Fatalf("%s: %s", tool, text)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		t.Fatalf("%s: not a JSON object: %s", tool, text)
	}
	return v
}

const nonsensePath = "SUDOCODE_PATH=/nonexistent/not-a-sudocode"

// Run in a project (by its working directory, SUDOCODE_WORKING_DIR or
// SUDOCODE_DB), the server answers the handshake with its capabilities,
// lists and calls tools on that project as SUDOCODE_ACTOR, and serves its
// resources. SUDOCODE_PATH, whatever it holds, changes nothing.
func TestTrackerStdio(t *testing.T) {
	quickstart, err := os.ReadFile("../mcptracker/testdata/quickstart.seed.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, how := range []string{"working directory", "SUDOCODE_WORKING_DIR", "SUDOCODE_DB"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			p := newProj(t, nonsensePath)
			dir, env := p.root, p.env
			switch how {
			case "SUDOCODE_WORKING_DIR":
				dir, env = t.TempDir(), append(env, "SUDOCODE_WORKING_DIR="+p.root)
			case "SUDOCODE_DB":
				dir, env = t.TempDir(), append(env, "SUDOCODE_DB="+filepath.Join(p.dir, "cache.db"))
			}
			s := connectTracker(t, dir, env)

			init := s.InitializeResult()
			if init.ServerInfo.Name != "sudocode" || init.ServerInfo.Version == "" {
				t.Errorf("serverInfo = %+v", init.ServerInfo)
			}
			//lint:ignore SA1019 the servers still offer MCP logging to clients of protocol versions before its deprecation (SEP-2577), and this checks it
			if c := init.Capabilities; c.Tools == nil || c.Resources == nil || c.Prompts == nil || c.Logging == nil {
				t.Errorf("capabilities = %+v, want tools, resources, prompts and logging", c)
			}
			if !strings.Contains(init.Instructions, "ready") {
				t.Errorf("instructions = %q", init.Instructions)
			}
			tools, err := s.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(tools.Tools) != len(toolCLI) {
				t.Errorf("tools/list: %d tools, want %d", len(tools.Tools), len(toolCLI))
			}

			// A change through MCP is the CLI's, recorded as SUDOCODE_ACTOR.
			created := jsonCall(t, s, "create_issue", map[string]any{"title": "From the agent", "priority": 1})
			id := created["id"].(string)
			if created["created_by"] != "alice" {
				t.Errorf("created_by = %v, want alice (SUDOCODE_ACTOR)", created["created_by"])
			}
			p.js("issue", "show", id).eq("From the agent", "title")
			p.js("issue", "update", id, "--status", "in_progress")
			shown := jsonCall(t, s, "show_issue", map[string]any{"issue_id": id})
			if shown["status"] != "in_progress" {
				t.Errorf("show_issue after the CLI's update: status %v", shown["status"])
			}
			want := strings.TrimSpace(string(compact(t, p.ok("issue", "list", "--all", "--json"))))
			if got, _ := callText(t, s, "list_issues", nil); got != want {
				t.Errorf("list_issues = %s, want the CLI's %s", got, want)
			}

			// A hand edit of the issue's shard file between two calls is
			// seen by the second. (The edit changes the file's size: the
			// store compares size and mtime, and an mtime may not move
			// within a clock tick.)
			path := trackertest.RecordFile[tracker.IssueRecord](p.dir, id)
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(strings.Replace(string(b), "From the agent", "Edited by a person", 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			if got := jsonCall(t, s, "show_issue", map[string]any{"issue_id": id})["title"]; got != "Edited by a person" {
				t.Errorf("show_issue after a hand edit: title %v", got)
			}

			for _, r := range []struct{ uri, want string }{
				{"sudocode://quickstart", string(quickstart)},
				{"sudocode://workflow", "## Relationship directions"},
			} {
				c, err := readResource(t, s, r.uri)
				if err != nil {
					t.Fatalf("read %s: %v", r.uri, err)
				}
				if c.MIMEType != "text/markdown" || !strings.Contains(c.Text, r.want) {
					t.Errorf("%s: %s %q", r.uri, c.MIMEType, c.Text)
				}
				if r.uri == "sudocode://quickstart" && c.Text != r.want {
					t.Errorf("sudocode://quickstart is not the requirement's text: %q", c.Text)
				}
			}
		})
	}
}

// Before init the tools say to run init; the init tool then creates the
// tracker in the working directory (or SUDOCODE_WORKING_DIR).
func TestTrackerStdioInit(t *testing.T) {
	for _, viaEnv := range []bool{false, true} {
		t.Run(fmt.Sprint("SUDOCODE_WORKING_DIR=", viaEnv), func(t *testing.T) {
			t.Parallel()
			p := newBareProj(t)
			dir, env := p.root, p.env
			if viaEnv {
				dir, env = t.TempDir(), append(env, "SUDOCODE_WORKING_DIR="+p.root)
			}
			s := connectTracker(t, dir, env)
			text, isErr := callText(t, s, "ready", nil)
			if !isErr || !strings.Contains(text, "no .sudocode found") || !strings.Contains(text, "Hint:") || !strings.Contains(text, "init") {
				t.Errorf("ready before init: %q (isError %v)", text, isErr)
			}
			res := jsonCall(t, s, "init", map[string]any{"prefix": "proj"})
			if res["path"] != p.dir || res["prefix"] != "proj" || res["success"] != true {
				t.Errorf("init = %v, want %s", res, p.dir)
			}
			id := jsonCall(t, s, "create_issue", map[string]any{"title": "First"})["id"].(string)
			if !strings.HasPrefix(id, "proj-") {
				t.Errorf("id %s, want the prefix proj-", id)
			}
			p.js("issue", "show", id).eq("First", "title")
		})
	}
}

// Everything the server writes on stdout is JSON-RPC, even at debug level
// with tool errors and invalid calls.
func TestTrackerStdioStdoutIsOnlyJSONRPC(t *testing.T) {
	p := newProj(t, nonsensePath)
	cmd := exec.Command(sudocodeBin, "mcp", "--log-level", "debug")
	cmd.Dir, cmd.Env = p.root, p.env
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr testkit.LockedBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()

	msgs := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"debug"}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"create_issue","arguments":{"title":"Raw"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"show_issue","arguments":{"issue_id":"sudocode-zzzz"}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"show_issue","arguments":{"issue_id":5}}}`,
		`{"jsonrpc":"2.0","id":6,"method":"resources/read","params":{"uri":"sudocode://workflow"}}`,
		`{"jsonrpc":"2.0","id":7,"method":"prompts/get","params":{"name":"start_next_task","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"list_issues","arguments":{}}}`,
	}
	for _, m := range msgs {
		if _, err := io.WriteString(stdin, m+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	var lines []string
	responses := map[float64]map[string]any{}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for sc.Scan() {
			lines = append(lines, sc.Text())
			var msg map[string]any
			if json.Unmarshal([]byte(sc.Text()), &msg) == nil {
				if id, ok := msg["id"].(float64); ok {
					responses[id] = msg
					if len(responses) == 8 {
						stdin.Close() // every answer is in (calls run concurrently, so in any order): end the session
					}
				}
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(testkit.Scale(20 * time.Second)):
		t.Fatalf("no end of output; stderr:\n%s", stderr.String())
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("sudocode mcp exited with %v; stderr:\n%s", err, stderr.String())
	}
	for _, line := range lines {
		var msg struct {
			JSONRPC string `json:"jsonrpc"`
		}
		if err := json.Unmarshal([]byte(line), &msg); err != nil || msg.JSONRPC != "2.0" {
			t.Errorf("stdout line is not JSON-RPC: %q", line)
		}
	}
	for id := 1.0; id <= 8; id++ {
		if id != 5 && responses[id]["error"] != nil {
			t.Errorf("response %v: %v", id, responses[id])
		}
	}
	if e, _ := responses[5]["error"].(map[string]any); e["code"] != float64(-32602) {
		t.Errorf("a mistyped argument: %v, want -32602", responses[5])
	}
	if r, _ := responses[4]["result"].(map[string]any); r["isError"] != true {
		t.Errorf("an unknown id: %v, want a tool error", responses[4])
	}
	if len(responses) != 8 {
		t.Errorf("%d responses, want 8", len(responses))
	}
}
