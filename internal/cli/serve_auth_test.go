package cli_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/testkit"
)

// servedTokens holds, by host:port, the token each server a test started
// keeps in its state directory; servedToken sends it.
var servedTokens sync.Map

// servedAt finds a server's host:port in what serve prints first (its
// address line, or its JSON document).
var servedAt = regexp.MustCompile(`http://(127\.0\.0\.1:\d+)/`)

// rememberToken notes the token kept in env's state directory, if there
// is one, as the token of the server at hostPort.
func rememberToken(hostPort string, env []string) {
	if tok := stateToken(env); tok != "" {
		servedTokens.Store(hostPort, tok)
	}
}

// stateToken is the token kept in the state directory ($XDG_STATE_HOME)
// of env; "" when there is none.
func stateToken(env []string) string {
	for _, kv := range env {
		if dir, ok := strings.CutPrefix(kv, "XDG_STATE_HOME="); ok {
			data, err := os.ReadFile(filepath.Join(dir, "sudocode", "token"))
			if err != nil {
				return ""
			}
			return strings.TrimSpace(string(data))
		}
	}
	return ""
}

// servedToken sends the token of the server a request goes to (as
// servedTokens knows it) when the request carries no Authorization.
type servedToken struct{ base http.RoundTripper }

func (s servedToken) RoundTrip(r *http.Request) (*http.Response, error) {
	if tok, ok := servedTokens.Load(r.URL.Host); ok && r.Header.Get("Authorization") == "" {
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", "Bearer "+tok.(string))
	}
	base := s.base
	if base == nil {
		base = http.DefaultTransport
	}
	return base.RoundTrip(r)
}

// stateTokenClient sends the token kept in env's state directory, if there
// is one, with every request that carries no Authorization of its own.
func stateTokenClient(env []string) *http.Client {
	return &http.Client{Transport: stateTokenTransport{stateToken(env)}}
}

type stateTokenTransport struct{ token string }

func (s stateTokenTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if s.token != "" && r.Header.Get("Authorization") == "" {
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", "Bearer "+s.token)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// initializeStatus sends an MCP initialize to url with the given
// Authorization ("" for none) and returns the status.
func initializeStatus(t *testing.T, url, authorization string) int {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// serveDoc is the part of serve's --json document these tests read.
type serveDoc struct {
	URL       string            `json:"url"`
	MCP       map[string]string `json:"mcp"`
	Auth      bool              `json:"auth"`
	Token     string            `json:"token"`
	TokenFile string            `json:"token_file"`
	Open      string            `json:"open"`
	Fleet     struct {
		NATS string `json:"nats"`
	} `json:"fleet"`
	Clients struct {
		ClaudeCode []string `json:"claude_code"`
		Codex      string   `json:"codex"`
		Cursor     struct {
			MCPServers map[string]struct {
				URL     string            `json:"url"`
				Headers map[string]string `json:"headers"`
			} `json:"mcpServers"`
		} `json:"cursor"`
	} `json:"clients"`
}

func startServeJSON(t *testing.T, env []string, args ...string) (*serveProc, serveDoc) {
	t.Helper()
	p, doc := startServe(t, env, true, append([]string{"--addr", "127.0.0.1:0", "--json"}, args...)...)
	var d serveDoc
	if err := json.Unmarshal([]byte(doc), &d); err != nil {
		t.Fatalf("%v: %s", err, doc)
	}
	return p, d
}

// TestServeNeedsTheTokenOnLoopback: `sudocode serve` with no token set
// still requires one on loopback, on every MCP endpoint: an MCP client
// without it cannot even initialize. The token is the user's, kept in the
// state directory (mode 0600), and is what the client configs it prints
// carry.
func TestServeNeedsTheTokenOnLoopback(t *testing.T) {
	env := childEnv(t)
	_, d := startServeJSON(t, env, "--dir", serveRepo(t))
	for name, url := range d.MCP {
		if code := initializeStatus(t, url, ""); code != http.StatusUnauthorized {
			t.Errorf("initialize %s without a token: %d, want 401", name, code)
		}
	}
	kept := stateToken(env)
	if kept == "" || !d.Auth || d.Token != kept || !strings.HasSuffix(d.TokenFile, "/sudocode/token") || d.Open != d.URL+"?token="+kept {
		t.Fatalf("kept %q; document token=%q token_file=%q open=%q auth=%v", kept, d.Token, d.TokenFile, d.Open, d.Auth)
	}
	if st, err := os.Stat(d.TokenFile); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("token file: %v %v", st, err)
	}
	for name, url := range d.MCP {
		if code := initializeStatus(t, url, "Bearer "+kept); code != http.StatusOK {
			t.Errorf("initialize %s with the token: %d, want 200", name, code)
		}
	}
	// The configs are ready to paste: each endpoint, with the token.
	agentURL := d.MCP["agent"]
	wantClaude := "claude mcp add --transport http sudocode-agent " + agentURL + " --header 'Authorization: Bearer " + kept + "'"
	if len(d.Clients.ClaudeCode) != 4 || !strings.Contains(strings.Join(d.Clients.ClaudeCode, "\n"), wantClaude) {
		t.Errorf("Claude Code: %q, want among them %q", d.Clients.ClaudeCode, wantClaude)
	}
	if !strings.Contains(d.Clients.Codex, "[mcp_servers]\n") ||
		!strings.Contains(d.Clients.Codex, `sudocode-agent = { url = "`+agentURL+`", http_headers = { Authorization = "Bearer `+kept+`" } }`) {
		t.Errorf("Codex:\n%s", d.Clients.Codex)
	}
	if c := d.Clients.Cursor.MCPServers["sudocode-agent"]; c.URL != agentURL || c.Headers["Authorization"] != "Bearer "+kept || len(d.Clients.Cursor.MCPServers) != 4 {
		t.Errorf("Cursor: %+v", d.Clients.Cursor)
	}
}

// TestServeTokenSurvivesRestart: stopped and started again with the same
// state directory, serve takes the token it had: clients configured with
// it keep working.
func TestServeTokenSurvivesRestart(t *testing.T) {
	env := childEnv(t)
	dir := serveRepo(t)
	p, first := startServeJSON(t, env, "--dir", dir)
	token := stateToken(env)
	if token == "" || first.Token != token {
		t.Fatalf("first start: kept %q, printed %q", token, first.Token)
	}
	testkit.Stop(t, p.cmd.Process, p.exited, 30*time.Second)
	_, second := startServeJSON(t, env, "--dir", dir)
	if second.Token != token {
		t.Errorf("after a restart the token is %q, want %q", second.Token, token)
	}
	if code := initializeStatus(t, second.MCP["agent"], "Bearer "+token); code != http.StatusOK {
		t.Errorf("the agent endpoint with the token of the first start: %d, want 200", code)
	}
}

// TestServeConfiguredTokenWins: --token (or SUDOCODE_TOKEN) is the token,
// and nothing is kept in the state directory for it.
func TestServeConfiguredTokenWins(t *testing.T) {
	env := childEnv(t, "SUDOCODE_TOKEN=configured-0123456789")
	_, d := startServeJSON(t, env, "--dir", serveRepo(t))
	if d.Token != "configured-0123456789" || d.TokenFile != "" || stateToken(env) != "" {
		t.Errorf("token %q, token_file %q, kept %q", d.Token, d.TokenFile, stateToken(env))
	}
	if code := initializeStatus(t, d.MCP["agent"], "Bearer configured-0123456789"); code != http.StatusOK {
		t.Errorf("the agent endpoint with the configured token: %d", code)
	}
}

// TestServeNoAuth: --no-auth serves without a token and warns, at start,
// of what that gives away; it is refused beside a token, and for an
// address that is not loopback.
func TestServeNoAuth(t *testing.T) {
	env := childEnv(t)
	p, d := startServeJSON(t, env, "--dir", serveRepo(t), "--no-auth")
	if d.Auth || d.Token != "" || len(d.Clients.ClaudeCode) != 0 {
		t.Errorf("auth %v, token %q, clients %v: want none", d.Auth, d.Token, d.Clients.ClaudeCode)
	}
	if code := initializeStatus(t, d.MCP["agent"], ""); code != http.StatusOK {
		t.Errorf("the agent endpoint with --no-auth and no token: %d, want 200", code)
	}
	testkit.WaitFor(t, 10*time.Second, "the --no-auth warning", func() bool {
		return strings.Contains(p.stderr.String(), "any local process")
	})
	if stateToken(env) != "" {
		t.Error("--no-auth made a token in the state directory")
	}
	for _, args := range [][]string{
		{"--no-auth", "--addr", "0.0.0.0:0"},
		{"--no-auth", "--token", "x-0123456789abcdef"},
	} {
		r := runCmd(t, env, "", sudocodeBin, append([]string{"serve", "--dir", t.TempDir()}, args...)...)
		if r.code != 2 || !strings.Contains(r.stderr, "--no-auth") {
			t.Errorf("serve %v: exit %d, stderr %q; want 2 and a refusal naming --no-auth", args, r.code, r.stderr)
		}
	}
	r := runCmd(t, env, "", sudocodeBin, "serve", "--help")
	if !strings.Contains(r.stdout, "--no-auth") || !strings.Contains(r.stdout, "any local process") {
		t.Errorf("serve --help does not say what --no-auth gives away:\n%s", r.stdout)
	}
}

// TestServePrintsClientConfigs: the text start-up output carries the token
// in ready-to-paste commands, compactly.
func TestServePrintsClientConfigs(t *testing.T) {
	env := childEnv(t)
	p, line := startServe(t, env, false, "--addr", "127.0.0.1:0", "--dir", serveRepo(t))
	token := stateToken(env)
	if token == "" || !strings.Contains(line, "?token="+token+" ") {
		t.Fatalf("first line %q, kept token %q", line, token)
	}
	base := servedAt.FindStringSubmatch(line)[1]
	want := []string{
		"claude mcp add --transport http sudocode-tracker http://" + base + "/mcp/tracker --header 'Authorization: Bearer " + token + "'",
		"[mcp_servers]",
		`sudocode-coding = { url = "http://` + base + `/mcp/coding", http_headers = { Authorization = "Bearer ` + token + `" } }`,
		`"sudocode-agent":{"url":"http://` + base + `/mcp/agent","headers":{"Authorization":"Bearer ` + token + `"}}`,
	}
	testkit.WaitFor(t, 10*time.Second, "the client configs", func() bool {
		for _, w := range want {
			if !strings.Contains(p.stdout.String(), w) {
				return false
			}
		}
		return true
	})
	if n := strings.Count(p.stdout.String(), "\n"); n > 16 {
		t.Errorf("%d lines after the address, want a compact block:\n%s", n, p.stdout)
	}
}

// TestMCPAgentHTTPNeedsTheToken: `sudocode mcp agent --http` runs commands
// too: on loopback it requires the user's token as serve does (the same
// one, from the same state directory), unless --no-auth.
func TestMCPAgentHTTPNeedsTheToken(t *testing.T) {
	env := childEnv(t)
	srv := startHTTP(t, env, sudocodeBin, "mcp", "agent", "--project", serveRepo(t), "--http", "127.0.0.1:0")
	if code := initializeStatus(t, srv.url, ""); code != http.StatusUnauthorized {
		t.Errorf("initialize without a token: %d, want 401", code)
	}
	token := stateToken(env)
	if token == "" {
		t.Fatal("no token kept in the state directory")
	}
	if code := initializeStatus(t, srv.url, "Bearer "+token); code != http.StatusOK {
		t.Errorf("initialize with the kept token: %d, want 200", code)
	}
	_, d := startServeJSON(t, env, "--dir", serveRepo(t))
	if d.Token != token {
		t.Errorf("serve took %q, mcp agent %q: want the user's one token", d.Token, token)
	}

	open := startHTTP(t, childEnv(t), sudocodeBin, "mcp", "agent", "--project", serveRepo(t), "--http", "127.0.0.1:0", "--no-auth")
	if code := initializeStatus(t, open.url, ""); code != http.StatusOK {
		t.Errorf("--no-auth: initialize without a token: %d, want 200", code)
	}
	if !strings.Contains(open.stderr.String(), "any local process") {
		t.Errorf("--no-auth did not warn:\n%s", open.stderr)
	}
	// The other servers keep their rule: a token is optional on loopback.
	rulesets := startHTTP(t, childEnv(t), sudocodeBin, "mcp", "rulesets", "--http", "127.0.0.1:0", "--store", t.TempDir())
	if code := initializeStatus(t, rulesets.url, ""); code != http.StatusOK {
		t.Errorf("mcp rulesets without a token: %d, want 200", code)
	}
	coding := startHTTP(t, childEnv(t), sudocodeBin, "mcp", "coding", "--workspace", t.TempDir(), "--port", "0")
	if code := initializeStatus(t, coding.url, ""); code != http.StatusOK {
		t.Errorf("mcp coding without a token: %d, want 200", code)
	}
}
