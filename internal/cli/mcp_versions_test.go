package cli_test

// Every server negotiates each MCP revision a client asks for, newest
// first, on stdio and on Streamable HTTP, alone and under `sudocode serve`:
// 2026-07-28 (server/discover, no session), then the handshake revisions.

import (
	"context"
	"net/http"
	"os/exec"
	"regexp"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/testkit"
)

// The revisions each server is asked for, and what it must answer. The
// coding tools' profile names 2025-06-18 for the handshake (a later one is
// negotiated down to it, an earlier one refused); 2026-07-28 has no
// handshake and is served as asked.
var (
	sdkRevisions    = map[string]string{"2026-07-28": "2026-07-28", "2025-11-25": "2025-11-25", "2025-06-18": "2025-06-18", "2025-03-26": "2025-03-26", "2024-11-05": "2024-11-05"}
	codingRevisions = map[string]string{"2026-07-28": "2026-07-28", "2025-11-25": "2025-06-18", "2025-06-18": "2025-06-18"}
)

// versionServer is one server as a client starts it.
type versionServer struct {
	name      string
	args      func(t *testing.T) []string // sudocode's arguments, for stdio
	httpArgs  []string                    // added for HTTP on a free port
	revisions map[string]string
	tool      string // a tool tools/list must include
}

func versionServers() []versionServer {
	return []versionServer{
		{"tracker", func(t *testing.T) []string { return []string{"mcp"} }, []string{"--http", "127.0.0.1:0"}, sdkRevisions, "ready"},
		{"rulesets", func(t *testing.T) []string { return []string{"mcp", "rulesets", "--store", t.TempDir()} }, []string{"--http", "127.0.0.1:0"}, sdkRevisions, "get_ruleset"},
		{"coding", func(t *testing.T) []string { return []string{"mcp", "coding", "--workspace", t.TempDir()} }, []string{"--port", "0"}, codingRevisions, "read_file"},
		{"agent", func(t *testing.T) []string { return []string{"mcp", "agent", "--project", testkit.Repo(t)} }, []string{"--http", "127.0.0.1:0"}, sdkRevisions, "create_task"},
	}
}

// negotiate connects asking for asked and checks the server answers want
// and lists tool.
func negotiate(t *testing.T, tr mcp.Transport, asked, want, tool string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(20*time.Second))
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "cli-test", Version: "0"}, nil).
		Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: asked})
	if err != nil {
		t.Fatalf("asking for %s: %v", asked, err)
	}
	defer cs.Close()
	if got := cs.InitializeResult().ProtocolVersion; got != want {
		t.Errorf("asked for %s: negotiated %s, want %s", asked, got, want)
	}
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("%s: tools/list: %v", asked, err)
	}
	found := false
	for _, tl := range res.Tools {
		found = found || tl.Name == tool
		if !toolNameRE.MatchString(tl.Name) {
			t.Errorf("%s: tool name %q is not 1 to 128 of A-Z a-z 0-9 _ - . (2025-11-25 and later)", asked, tl.Name)
		}
	}
	if !found {
		t.Errorf("%s: tools/list has no %s", asked, tool)
	}
}

// toolNameRE is what a tool name may be since 2025-11-25 (SEP-986).
var toolNameRE = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)

func TestServersNegotiateEveryRevision(t *testing.T) {
	for _, sv := range versionServers() {
		t.Run(sv.name+"/stdio", func(t *testing.T) {
			for asked, want := range sv.revisions {
				cmd := exec.Command(sudocodeBin, append(sv.args(t), stdioFlag(sv.name)...)...)
				cmd.Env = childEnv(t)
				negotiate(t, &mcp.CommandTransport{Command: cmd}, asked, want, sv.tool)
			}
		})
		t.Run(sv.name+"/http", func(t *testing.T) {
			srv := startHTTP(t, childEnv(t), sudocodeBin, append(sv.args(t), sv.httpArgs...)...)
			for asked, want := range sv.revisions {
				negotiate(t, &mcp.StreamableClientTransport{Endpoint: srv.url, HTTPClient: &http.Client{Transport: servedToken{}}, MaxRetries: -1}, asked, want, sv.tool)
			}
		})
	}
}

// TestServeNegotiatesEveryRevision: the four endpoints of `sudocode serve`.
func TestServeNegotiatesEveryRevision(t *testing.T) {
	dir := serveRepo(t)
	_, line := startServe(t, childEnv(t), false, "--addr", "127.0.0.1:0", "--dir", dir)
	m := serveLine.FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("first line %q", line)
	}
	for _, sv := range versionServers() {
		for asked, want := range sv.revisions {
			negotiate(t, &mcp.StreamableClientTransport{Endpoint: m[1] + "mcp/" + sv.name, HTTPClient: &http.Client{Transport: servedToken{}}, MaxRetries: -1}, asked, want, sv.tool)
		}
	}
}

func stdioFlag(server string) []string {
	if server == "coding" {
		return []string{"--stdio"}
	}
	return nil
}
