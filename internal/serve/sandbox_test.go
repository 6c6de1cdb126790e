package serve_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/serve"
	"github.com/sudocode/sudocode/internal/testkit"
)

// A command run through /mcp/coding cannot reach the other servers on
// the same loopback port: it could otherwise start an unsandboxed agent
// through /mcp/agent. The kernel refuses the connection, whatever the
// command's text looks like to the policy.
func TestCodingCommandCannotReachTheAgentServer(t *testing.T) {
	testkit.Runnable(t, "python3", "apt-get install -y python3", "--version")
	dir := project(t)
	ts, srv := start(t, dir, serve.Options{})
	u, _ := url.Parse(ts.URL)
	script := fmt.Sprintf(`import http.client, json
c = http.client.HTTPConnection(%q, %s, timeout=5)
body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "x", "version": "1"}}})
try:
    c.request("POST", "/mcp/agent", body, {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"})
    print("reached", c.getresponse().status)
except OSError as e:
    print("refused", e)
# TCP Fast Open: a connect inside sendto, which Landlock's TCP rules do
# not see.
import socket
s = socket.socket()
req = ("POST /mcp/agent HTTP/1.1\r\nHost: %s:%s\r\nContent-Type: application/json\r\n"
       "Accept: application/json, text/event-stream\r\nContent-Length: %%d\r\n\r\n%%s") %% (len(body), body)
try:
    s.sendto(req.encode(), socket.MSG_FASTOPEN, (%q, %s))
    print("reached", s.recv(100))
except OSError as e:
    print("refused", e)
`, u.Hostname(), u.Port(), u.Hostname(), u.Port(), u.Hostname(), u.Port())
	if err := os.WriteFile(filepath.Join(dir, "reach.py"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := connect(t, ts.URL+serve.PathCoding, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: "exec_command", Arguments: map[string]any{"cmd": "python3 reach.py", "yield_time_ms": 20000}})
	if err != nil {
		t.Fatal(err)
	}
	out := res.Content[0].(*mcp.TextContent).Text
	if res.IsError || strings.Count(out, "refused [Errno") != 2 || strings.Contains(out, "reached") {
		t.Fatalf("python3 reach.py through exec_command: %s\nwant both connections refused", out)
	}
	if tasks, err := srv.Tasks.List(context.Background()); err != nil || len(tasks) != 0 {
		t.Fatalf("tasks %v %v", tasks, err)
	}
}
