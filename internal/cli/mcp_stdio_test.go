package cli_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/testkit"
)

// stdioServers are the two ways to start the ruleset server on stdio, each
// with an embedded store in dir.
func stdioServers() []struct {
	name string
	bin  func() string
	args func(dir string) []string
} {
	return []struct {
		name string
		bin  func() string
		args func(dir string) []string
	}{
		{"sudocode mcp rulesets", func() string { return sudocodeBin }, func(dir string) []string { return []string{"mcp", "rulesets", "--store", dir} }},
		{"mcp-ruleset-server", func() string { return rulesetServerBin }, func(dir string) []string { return []string{"--store", dir} }},
	}
}

// wantTools are the specification's five tools and the library's own.
var wantTools = []string{"upsert_ruleset", "get_ruleset", "delete_ruleset", "list_rulesets", "search_rulesets",
	"import_rules", "resolve_rules", "get_ruleset_version", "diff_ruleset_versions", "restore_ruleset"}

// checkServer runs the smoke test every transport shares: identity,
// capabilities, the tool list, an upsert and the resource.
func checkServer(t *testing.T, s *mcp.ClientSession) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(20*time.Second))
	defer cancel()

	init := s.InitializeResult()
	if init == nil || init.ServerInfo == nil {
		t.Fatal("no initialize result")
	}
	if init.ServerInfo.Name != "MCP Ruleset Server" || init.ServerInfo.Version != "1.0.0" {
		t.Errorf("serverInfo = %q %q, want \"MCP Ruleset Server\" \"1.0.0\"", init.ServerInfo.Name, init.ServerInfo.Version)
	}
	//lint:ignore SA1019 the servers still offer MCP logging to clients of protocol versions before its deprecation (SEP-2577), and this checks it
	if c := init.Capabilities; c == nil || c.Logging == nil || c.Resources == nil || c.Tools == nil {
		t.Errorf("capabilities = %+v, want logging, resources and tools", c)
	}

	tools, err := s.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	if !sameSet(names, wantTools) {
		t.Errorf("tools/list = %v, want exactly %v", names, wantTools)
	}

	templates, err := s.ListResourceTemplates(ctx, nil)
	if err != nil {
		t.Fatalf("resources/templates/list: %v", err)
	}
	var tpls []string
	for _, rt := range templates.ResourceTemplates {
		tpls = append(tpls, rt.URITemplate+" "+rt.MIMEType)
	}
	if strings.Join(tpls, ", ") != "ruleset-history://{name} application/json, ruleset://{name} text/markdown" {
		t.Errorf("resource templates = %q, want ruleset://{name} as text/markdown and its history as JSON", tpls)
	}

	wantText(t, s, "upsert_ruleset", pyArgs, "Successfully upserted ruleset 'python_style_guide'")

	c, err := readResource(t, s, "ruleset://python_style_guide")
	if err != nil {
		t.Fatalf("resources/read: %v", err)
	}
	if c.URI != "ruleset://python_style_guide" || c.MIMEType != "text/markdown" {
		t.Errorf("resource %q is %q, want ruleset://python_style_guide as text/markdown", c.URI, c.MIMEType)
	}
	if !strings.HasPrefix(c.Text, "---\nname: python_style_guide\n") {
		t.Errorf("resource text does not begin with the front matter: %q", c.Text)
	}
	wantDoc := "---\nname: python_style_guide\ndescription: " + pyDescription +
		"\ntags: [python, style, pep8]\ncreated_at: TIME\nlast_modified: TIME\n---\n\n" + pyMarkdown
	if got := maskTimes(c.Text); got != wantDoc {
		t.Errorf("resource text:\n got %q\nwant %q", got, wantDoc)
	}

	got, isErr := callText(t, s, "get_ruleset", map[string]any{"name": pyName})
	if isErr || maskTimes(got) != wantDoc {
		t.Errorf("get_ruleset:\n got %q (isError %v)\nwant %q", got, isErr, wantDoc)
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

func TestStdioServer(t *testing.T) {
	for _, srv := range stdioServers() {
		t.Run(srv.name, func(t *testing.T) {
			t.Parallel()
			s, _ := connectStdio(t, childEnv(t), srv.bin(), srv.args(t.TempDir())...)
			checkServer(t, s)

			// A missing ruleset read as a resource is a JSON-RPC -32603 error.
			_, err := readResource(t, s, "ruleset://nonexistent")
			var werr *jsonrpc.Error
			if !errors.As(err, &werr) || werr.Code != jsonrpc.CodeInternalError ||
				werr.Message != "failed to retrieve ruleset: ruleset 'nonexistent' not found" {
				t.Errorf("resources/read of a missing ruleset: %v, want -32603 \"failed to retrieve ruleset: ruleset 'nonexistent' not found\"", err)
			}
			got, isErr := callText(t, s, "get_ruleset", map[string]any{"name": "nonexistent"})
			if want := "failed to retrieve ruleset: ruleset 'nonexistent' not found"; !isErr || got != want {
				t.Errorf("get_ruleset of a missing ruleset: %q (isError %v), want %q", got, isErr, want)
			}
		})
	}
}

func TestStdioServersShareTheEmbeddedStore(t *testing.T) {
	dir := t.TempDir()
	env := childEnv(t)
	srv := stdioServers()
	a, _ := connectStdio(t, env, srv[0].bin(), srv[0].args(dir)...)
	wantText(t, a, "upsert_ruleset", pyArgs, "Successfully upserted ruleset 'python_style_guide'")

	// The other binary, running at the same time on the same store, sees it
	// and its changes are seen back.
	b, _ := connectStdio(t, env, srv[1].bin(), srv[1].args(dir)...)
	got, isErr := callText(t, b, "search_rulesets", map[string]any{"pattern": "*python*"})
	want := "Found 1 ruleset(s) matching '*python*':\n\n- **python_style_guide**: " + pyDescription +
		"\n  Tags: [python style pep8]\n  Created: TIME, Modified: TIME\n\n"
	if isErr || maskTimes(got) != want {
		t.Errorf("search_rulesets from the second server:\n got %q\nwant %q", got, want)
	}
	wantText(t, b, "delete_ruleset", map[string]any{"name": pyName}, "Successfully deleted ruleset 'python_style_guide'")
	wantText(t, a, "list_rulesets", map[string]any{}, "No rulesets found")
}

// TestStdioStdoutIsOnlyJSONRPC drives a server by hand and checks that
// every line it writes on stdout is a JSON-RPC message, even with debug
// logging and log notifications on.
func TestStdioStdoutIsOnlyJSONRPC(t *testing.T) {
	for _, srv := range stdioServers() {
		t.Run(srv.name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(srv.bin(), append(srv.args(t.TempDir()), "--log-level", "debug")...)
			cmd.Env = childEnv(t)
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

			lines := make(chan string, 100)
			go func() {
				sc := bufio.NewScanner(stdout)
				sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
				for sc.Scan() {
					lines <- sc.Text()
				}
				close(lines)
			}()

			var all []string
			responses := map[float64]map[string]any{}
			// await reads stdout until the response with id arrives.
			await := func(id float64) map[string]any {
				t.Helper()
				timeout := time.After(testkit.Scale(20 * time.Second))
				for responses[id] == nil {
					select {
					case line, ok := <-lines:
						if !ok {
							t.Fatalf("stdout closed before the response to %v; stderr:\n%s", id, stderr.String())
						}
						all = append(all, line)
						var msg map[string]any
						if json.Unmarshal([]byte(line), &msg) == nil {
							if n, ok := msg["id"].(float64); ok {
								responses[n] = msg
							}
						}
					case <-timeout:
						t.Fatalf("no response to %v within %v; stdout so far %q", id, testkit.Scale(20*time.Second), all)
					}
				}
				return responses[id]
			}
			send := func(msg string) {
				t.Helper()
				if _, err := io.WriteString(stdin, msg+"\n"); err != nil {
					t.Fatalf("write %s: %v", msg, err)
				}
			}

			send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
			init := await(1)
			result, _ := init["result"].(map[string]any)
			info, _ := result["serverInfo"].(map[string]any)
			if info["name"] != "MCP Ruleset Server" || info["version"] != "1.0.0" {
				t.Errorf("initialize result: %v", init)
			}
			caps, _ := result["capabilities"].(map[string]any)
			for _, c := range []string{"logging", "resources", "tools"} {
				if _, ok := caps[c]; !ok {
					t.Errorf("initialize result has no %q capability: %v", c, caps)
				}
			}

			send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			send(`{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"info"}}`)
			await(2)
			args, _ := json.Marshal(pyArgs)
			send(fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"upsert_ruleset","arguments":%s}}`, args))
			send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"get_ruleset","arguments":{"name":42}}}`)
			send(`{"jsonrpc":"2.0","id":5,"method":"no/such/method"}`)
			send(`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"list_rulesets","arguments":{}}}`)

			if got := fmt.Sprint(await(3)["result"]); !strings.Contains(got, "Successfully upserted ruleset 'python_style_guide'") {
				t.Errorf("upsert result: %s", got)
			}
			if e, _ := await(4)["error"].(map[string]any); e["code"] != float64(-32602) ||
				e["message"] != "invalid parameter 'name': expected string, got number" {
				t.Errorf("a mistyped argument: %v, want -32602 \"invalid parameter 'name': expected string, got number\"", await(4))
			}
			if e, _ := await(5)["error"].(map[string]any); e["code"] != float64(-32601) {
				t.Errorf("an unknown method: %v, want -32601", await(5))
			}
			await(6)

			// End of input ends the server, cleanly.
			stdin.Close()
			for line := range lines {
				all = append(all, line)
			}
			if err := cmd.Wait(); err != nil {
				t.Errorf("the server exited with %v after its stdin closed; stderr:\n%s", err, stderr.String())
			}

			notified := false
			for _, line := range all {
				var msg struct {
					JSONRPC string `json:"jsonrpc"`
					Method  string `json:"method"`
					Params  struct {
						Logger string         `json:"logger"`
						Data   map[string]any `json:"data"`
					} `json:"params"`
				}
				if err := json.Unmarshal([]byte(line), &msg); err != nil || msg.JSONRPC != "2.0" {
					t.Errorf("stdout line is not a JSON-RPC message: %q", line)
				}
				if msg.Method == "notifications/message" && msg.Params.Data["message"] == "created ruleset" && msg.Params.Data["name"] == pyName {
					notified = true
				}
			}
			if !notified {
				t.Errorf("no notifications/message for the created ruleset on stdout: %q", all)
			}
			if !strings.Contains(stderr.String(), "created ruleset") {
				t.Errorf("the log on stderr does not record the created ruleset:\n%s", stderr.String())
			}
		})
	}
}
