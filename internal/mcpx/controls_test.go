package mcpx

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The tokens of the tests' token files.
const (
	aliceToken = "alice-0123456789abcdef0123456789"
	bobToken   = "bob-0123456789abcdef0123456789ab"
	carolToken = "carol-0123456789abcdef012345678"
)

// writeTokenFile writes a token file and returns its path.
func writeTokenFile(t *testing.T, path, content string) string {
	t.Helper()
	if path == "" {
		path = filepath.Join(t.TempDir(), "tokens")
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// teamServer is a server with the tools the controls tests call: whoami
// answers the caller its handler sees, record takes any arguments, fail
// is a tool error.
func teamServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "mcpx team test", Version: "0.0.1"}, nil)
	anyArgs := &jsonschema.Schema{Type: "object"}
	s.AddTool(&mcp.Tool{Name: "whoami", Description: "The caller", InputSchema: anyArgs},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return Text(CallerFrom(ctx)), nil
		})
	s.AddTool(&mcp.Tool{Name: "record", Description: "Takes anything", InputSchema: anyArgs},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return Text("recorded"), nil })
	s.AddTool(&mcp.Tool{Name: "fail", Description: "A tool error", InputSchema: anyArgs},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			r := Text("it failed")
			r.IsError = true
			return r, nil
		})
	return s
}

// startTeam serves teamServer with tr over a real loopback listener and
// returns the base URL (the endpoint is base + Path).
func startTeam(t *testing.T, tr Transport) string {
	t.Helper()
	if tr.Name == "" {
		tr.Name = "team"
	}
	return startServer(t, teamServer(), tr)
}

// startServer serves s with tr over a real loopback listener and returns
// the base URL.
func startServer(t *testing.T, s *mcp.Server, tr Transport) string {
	t.Helper()
	ts := httptest.NewServer(Handler(s, tr, quietLogger()))
	t.Cleanup(ts.Close)
	return ts.URL
}

// bearer is an http.Client that sends Authorization: Bearer token.
func bearer(token string) *http.Client {
	return &http.Client{Transport: bearerTransport{token: token, next: http.DefaultTransport}}
}

type bearerTransport struct {
	token string
	next  http.RoundTripper
}

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if b.token != "" {
		r.Header.Set("Authorization", "Bearer "+b.token)
	}
	return b.next.RoundTrip(r)
}

// connectAs opens a session with the SDK's streamable client, sending
// token ("" for none): a client of 2025-11-25, which shakes hands and
// holds a session.
func connectAs(t *testing.T, endpoint, token string) (*mcp.ClientSession, error) {
	return connectRevision(t, endpoint, token, handshakeRevision)
}

// handshakeRevision is the newest revision with a session handshake.
const handshakeRevision = "2025-11-25"

// connectRevision connects the SDK's streamable client asking for
// revision, sending token ("" for none).
func connectRevision(t *testing.T, endpoint, token, revision string) (*mcp.ClientSession, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpx-team-test", Version: "0"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: bearer(token), DisableStandaloneSSE: true},
		&mcp.ClientSessionOptions{ProtocolVersion: revision})
	if err == nil {
		t.Cleanup(func() { cs.Close() })
	}
	return cs, err
}

func mustConnectAs(t *testing.T, endpoint, token string) *mcp.ClientSession {
	t.Helper()
	cs, err := connectAs(t, endpoint, token)
	if err != nil {
		t.Fatalf("connect with a token: %v", err)
	}
	return cs
}

// callText calls a tool and returns its first text (or the error).
func callText(t *testing.T, cs *mcp.ClientSession, tool string, args any) (string, *mcp.CallToolResult, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return "", nil, err
	}
	if len(res.Content) == 0 {
		return "", res, nil
	}
	text, _ := res.Content[0].(*mcp.TextContent)
	if text == nil {
		return "", res, nil
	}
	return text.Text, res, nil
}

// readLines reads a file of JSON lines.
func readAuditLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("audit line is not JSON: %v: %q", err, line)
		}
		out = append(out, m)
	}
	return out
}
