package cli_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/sudocode/sudocode/internal/mcpx"
	"github.com/sudocode/sudocode/internal/testkit"
)

const (
	teamAlice = "alice-0123456789abcdef0123456789"
	teamBob   = "bob-0123456789abcdef0123456789ab"
)

func teamTokenFile(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tokens")
	if err := os.WriteFile(path, []byte("# the team\nalice "+teamAlice+"\nbob "+teamBob+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// unauthorized POSTs a ping with auth ("" for none) and says whether it
// was refused with 401.
func unauthorized(t *testing.T, url, auth string) bool {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusUnauthorized
}

// scrapeCounter reads a counter from /metrics (next to /mcp) with a token.
func scrapeCounter(t *testing.T, mcpURL, token, name string, labels map[string]string) float64 {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, strings.TrimSuffix(mcpURL, "/mcp")+"/metrics", nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return float64(-resp.StatusCode)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
next:
	for _, m := range fams[name].GetMetric() {
		for _, l := range m.GetLabel() {
			if v, ok := labels[l.GetName()]; ok && v != l.GetValue() {
				continue next
			}
		}
		return m.GetCounter().GetValue()
	}
	return -1
}

// sudocode mcp --http with a token file, an audit log and rate limits:
// 401 without a token, created_by from the token's name, a retryable
// error past a tool's limit, an audit line per call, and /metrics.
func TestTrackerHTTPForATeam(t *testing.T) {
	t.Parallel()
	repo := t.TempDir()
	env := childEnv(t, "SUDOCODE_WORKING_DIR="+repo, "SUDOCODE_ACTOR=local-user")
	if r := sudocode(t, env, "", "init"); r.code != 0 {
		t.Fatalf("init: %+v", r)
	}
	audit := filepath.Join(t.TempDir(), "audit.log")
	srv := startHTTP(t, append(env, "SUDOCODE_AUDIT_LOG="+audit), sudocodeBin, "mcp", "--http", "127.0.0.1:0",
		"--token-file", teamTokenFile(t), "--rate-limit", "100/s", "--rate-limit-tool", "create_issue=1/m")

	for _, auth := range []string{"", "Bearer wrong", "Bearer " + teamAlice + "x"} {
		if !unauthorized(t, srv.url, auth) {
			t.Errorf("Authorization %q was not refused with 401", auth)
		}
	}
	if got := scrapeCounter(t, srv.url, "", "sudocode_mcp_tool_calls_total", nil); got != -401 {
		t.Errorf("/metrics without a token: %v, want 401", got)
	}

	alice := connectHTTP(t, srv.url, map[string]string{"Authorization": "Bearer " + teamAlice})
	res, err := alice.CallTool(t.Context(), &mcp.CallToolParams{Name: "create_issue", Arguments: map[string]any{"title": "First", "description": "push with ghp_abcdefghijklmnopqrstuvwxyz0123456789"}})
	if err != nil || res.IsError {
		t.Fatalf("create_issue: %v %+v", err, res)
	}
	var issue struct {
		CreatedBy string `json:"created_by"`
	}
	b, _ := json.Marshal(res.StructuredContent)
	if json.Unmarshal(b, &issue); issue.CreatedBy != "alice" {
		t.Errorf("created_by %q, want alice: %s", issue.CreatedBy, b)
	}
	_, err = alice.CallTool(t.Context(), &mcp.CallToolParams{Name: "create_issue", Arguments: map[string]any{"title": "Second"}})
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != mcpx.CodeRateLimited || !strings.Contains(string(rpcErr.Data), "retry_after_ms") {
		t.Errorf("a second create_issue within the minute: %v, want a rate-limit error", err)
	}
	bob := connectHTTP(t, srv.url, map[string]string{"Authorization": "Bearer " + teamBob})
	if res, err := bob.CallTool(t.Context(), &mcp.CallToolParams{Name: "ready"}); err != nil || res.IsError {
		t.Errorf("bob's ready: %v %+v", err, res)
	}

	if got := scrapeCounter(t, srv.url, teamBob, "sudocode_mcp_tool_calls_total",
		map[string]string{"server": "tracker", "tool": "create_issue", "outcome": "rate-limited"}); got != 1 {
		t.Errorf("rate-limited create_issue calls in /metrics: %v, want 1", got)
	}
	srv.terminate(t)

	data, err := os.ReadFile(audit)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 3 || strings.Contains(string(data), "ghp_") {
		t.Errorf("audit log, want 3 lines and no token:\n%s", data)
	}
	for i, want := range []string{`"client":"alice","server":"tracker","tool":"create_issue","outcome":"ok"`,
		`"client":"alice","server":"tracker","tool":"create_issue","outcome":"rate-limited"`,
		`"client":"bob","server":"tracker","tool":"ready","outcome":"ok"`} {
		if i < len(lines) && !strings.Contains(lines[i], want) {
			t.Errorf("audit line %d = %s, want it to hold %s", i, lines[i], want)
		}
	}
}

// sudocode mcp coding (coding-tools-mcp) takes the same controls: its
// tokens, its audit lines on stderr (--audit-log -), its /metrics.
func TestCodingHTTPForATeam(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := startHTTP(t, childEnv(t), sudocodeBin, "mcp", "coding", "--workspace", ws, "--port", "0",
		"--token-file", teamTokenFile(t), "--audit-log", "-")
	if !unauthorized(t, srv.url, "") || !unauthorized(t, srv.url, "Bearer nope") {
		t.Error("a request without a good token was not refused with 401")
	}
	ctx, cancel := context.WithTimeout(t.Context(), testkit.Scale(20*time.Second))
	defer cancel()
	bob, err := mcp.NewClient(&mcp.Implementation{Name: "cli-test", Version: "0"}, nil).Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint: srv.url, HTTPClient: &http.Client{Transport: &watchingTransport{header: map[string]string{"Authorization": "Bearer " + teamBob}, base: http.DefaultTransport}},
		DisableStandaloneSSE: true,
	}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer bob.Close()
	if res, err := bob.CallTool(t.Context(), &mcp.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": "notes.txt"}}); err != nil || res.IsError {
		t.Fatalf("read_file: %v %+v", err, res)
	}
	if got := scrapeCounter(t, srv.url, teamAlice, "sudocode_mcp_tool_calls_total",
		map[string]string{"server": "coding", "tool": "read_file", "outcome": "ok"}); got != 1 {
		t.Errorf("read_file calls in /metrics: %v, want 1", got)
	}
	if !testkit.Eventually(5*time.Second, func() bool {
		return strings.Contains(srv.stderr.String(), `"client":"bob","server":"coding","tool":"read_file","outcome":"ok"`)
	}) {
		t.Fatalf("waited %v for bob's read_file audit line on stderr:\n%s", testkit.Scale(5*time.Second), srv.stderr)
	}
}

func TestTeamFlagsRefuseBadValues(t *testing.T) {
	t.Parallel()
	store := t.TempDir()
	for _, args := range [][]string{
		{"mcp", "rulesets", "--store", store, "--http", "127.0.0.1:0", "--rate-limit", "5/day"},
		{"mcp", "rulesets", "--store", store, "--http", "127.0.0.1:0", "--rate-limit-tool", "get_ruleset"},
		{"mcp", "rulesets", "--store", store, "--http", "127.0.0.1:0", "--token-file", filepath.Join(store, "missing")},
		{"mcp", "agent", "--project", store, "--http", "127.0.0.1:0", "--rate-limit", "fast"},
		{"serve", "--dir", store, "--addr", "127.0.0.1:0", "--store", store, "--token-file", filepath.Join(store, "missing")},
		{"mcp", "coding", "--workspace", store, "--port", "0", "--rate-limit-tool", "read_file=often"},
		{"mcp", "rulesets", "--store", store, "--http", "127.0.0.1:0", "--body-timeout", "-1s"},
		{"serve", "--dir", store, "--addr", "127.0.0.1:0", "--store", store, "--body-timeout", "soon"},
		{"mcp", "rulesets", "--store", store, "--http", "127.0.0.1:0", "--max-sessions", "-1"},
		{"mcp", "coding", "--workspace", store, "--port", "0", "--session-idle-timeout", "-5m"},
		{"serve", "--dir", store, "--addr", "127.0.0.1:0", "--store", store, "--max-sessions-per-client", "many"},
	} {
		r := runCmd(t, childEnv(t), "", sudocodeBin, args...)
		if r.code != 2 {
			t.Errorf("sudocode %s: exit %d, want 2 (usage)\nstderr: %s", strings.Join(args, " "), r.code, r.stderr)
		}
	}
}
