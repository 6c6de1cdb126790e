package serve_test

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

	"github.com/sudocode/sudocode/internal/mcpx"
	"github.com/sudocode/sudocode/internal/mcpx/metricstest"
	"github.com/sudocode/sudocode/internal/serve"
	"github.com/sudocode/sudocode/internal/testkit"
)

const (
	aliceToken = "alice-0123456789abcdef0123456789"
	bobToken   = "bob-0123456789abcdef0123456789ab"
	// fakeSecret looks like a GitHub token: the audit log must not keep it.
	fakeSecret = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
)

// team serves a project for alice and bob (a token file), with an audit
// log, metrics and rate limits.
func team(t *testing.T, limits *mcpx.Limiter) (base, auditPath string, srv *serve.Server) {
	t.Helper()
	dir := project(t)
	tokens := filepath.Join(t.TempDir(), "tokens")
	if err := os.WriteFile(tokens, []byte("alice "+aliceToken+"\nbob "+bobToken+" command\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	a, err := mcpx.NewAuth("", tokens, nil)
	if err != nil {
		t.Fatal(err)
	}
	auditPath = filepath.Join(t.TempDir(), "audit.log")
	audit, err := mcpx.OpenAuditLog(auditPath, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { audit.Close() })
	ts, srv := start(t, dir, serve.Options{Actor: "local-user", Auth: a,
		Calls: &mcpx.Calls{Audit: audit, Metrics: mcpx.NewMetrics(), Limits: limits}})
	if srv.Tasks == nil {
		t.Fatalf("no orchestrator: %s", srv.TasksUnavailable)
	}
	return ts.URL, auditPath, srv
}

func as(t *testing.T, url, token string) *mcp.ClientSession {
	t.Helper()
	s, err := connect(t, url, map[string]string{"Authorization": "Bearer " + token})
	if err != nil {
		t.Fatalf("connect to %s: %v", url, err)
	}
	return s
}

// structured calls a tool and decodes its structured content into v.
func structured(t *testing.T, s *mcp.ClientSession, tool string, args map[string]any, v any) {
	t.Helper()
	res, err := s.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil || res.IsError {
		b, _ := json.Marshal(res)
		t.Fatalf("%s: %v %s", tool, err, b)
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v: %s", tool, err, b)
	}
}

// The four servers and /metrics refuse a request without a token (401);
// with one, the caller's name is what the tracker records as created_by
// and the orchestrator as the task's actor; every call is an audit line
// without secrets; /metrics counts the calls, the sessions and the tasks.
func TestServeForATeam(t *testing.T) {
	base, auditPath, srv := team(t, nil)

	for _, path := range append(serve.Paths(), mcpx.MetricsPath, "/", "/api/issues") {
		if _, err := connect(t, base+path, nil); err == nil && strings.HasPrefix(path, "/mcp/") {
			t.Errorf("%s: a client without a token connected", path)
		}
		if code := post(t, base+path, map[string]string{"Authorization": "Bearer wrong"}); code != http.StatusUnauthorized {
			t.Errorf("POST %s with a wrong token: %d, want 401", path, code)
		}
		req, _ := http.NewRequest(http.MethodGet, base+path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("GET %s without a token: %d, want 401", path, resp.StatusCode)
		}
	}

	// The tracker records each caller as the author.
	tracker := map[string]*mcp.ClientSession{"alice": as(t, base+serve.PathTracker, aliceToken), "bob": as(t, base+serve.PathTracker, bobToken)}
	for name, s := range tracker {
		var issue struct {
			ID        string `json:"id"`
			CreatedBy string `json:"created_by"`
		}
		structured(t, s, "create_issue", map[string]any{"title": "Issue by " + name, "description": "token " + fakeSecret}, &issue)
		if issue.CreatedBy != name {
			t.Errorf("issue created by %s has created_by %q", name, issue.CreatedBy)
		}
		var shown struct {
			CreatedBy string `json:"created_by"`
		}
		structured(t, tracker["alice"], "show_issue", map[string]any{"issue_id": issue.ID}, &shown)
		if shown.CreatedBy != name {
			t.Errorf("show_issue %s: created_by %q, want %s", issue.ID, shown.CreatedBy, name)
		}
	}

	// The orchestrator records bob as the owner of his task.
	agent := as(t, base+serve.PathAgent, bobToken)
	var created struct {
		Result struct {
			TaskID string `json:"taskId"`
		} `json:"result"`
	}
	structured(t, agent, "create_task", map[string]any{"tool": "COMMAND", "description": "Say hello",
		"config": map[string]any{"command": []string{"sh", "-c", "echo hello"}}}, &created)
	task, err := srv.Tasks.Get(t.Context(), created.Result.TaskID)
	if err != nil {
		t.Fatal(err)
	}
	if task.Actor != "bob" {
		t.Errorf("task %s: actor %q, want bob", task.ID, task.Actor)
	}
	waitCtx, cancel := context.WithTimeout(t.Context(), testkit.Scale(20*time.Second))
	defer cancel()
	srv.Tasks.Wait(waitCtx, task.ID)

	// The other two servers, with a secret in the arguments.
	rulesets := as(t, base+serve.PathRulesets, aliceToken)
	if res, err := rulesets.CallTool(t.Context(), &mcp.CallToolParams{Name: "upsert_ruleset", Arguments: map[string]any{
		"name": "deploy", "description": "How to deploy", "markdown": "Use " + fakeSecret + " to push.",
	}}); err != nil || res.IsError {
		t.Fatalf("upsert_ruleset: %v %+v", err, res)
	}
	// The ruleset's history names alice, then bob who changed it.
	if res, err := as(t, base+serve.PathRulesets, bobToken).CallTool(t.Context(), &mcp.CallToolParams{Name: "upsert_ruleset",
		Arguments: map[string]any{"name": "deploy", "tags": []string{"ops"}}}); err != nil || res.IsError {
		t.Fatalf("upsert_ruleset by bob: %v %+v", err, res)
	}
	hist, err := rulesets.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "ruleset-history://deploy"})
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Changes []struct {
			By, Action string
			Fields     []string
		}
	}
	if err := json.Unmarshal([]byte(hist.Contents[0].Text), &doc); err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(doc.Changes); string(b) != `[{"By":"bob","Action":"updated","Fields":["tags"]},{"By":"alice","Action":"created","Fields":["description","markdown","tags"]}]` {
		t.Errorf("ruleset history: %s", b)
	}
	coding := as(t, base+serve.PathCoding, bobToken)
	if res, err := coding.CallTool(t.Context(), &mcp.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": "README.md"}}); err != nil || res.IsError {
		t.Fatalf("read_file: %v %+v", err, res)
	}
	if res, err := coding.CallTool(t.Context(), &mcp.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": "missing.md"}}); err != nil || !res.IsError {
		t.Fatalf("read_file of a missing file: %v %+v", err, res)
	}

	// The audit log: one line per call, in order, no secret.
	data, err := os.ReadFile(auditPath)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), fakeSecret) || strings.Contains(string(data), aliceToken) || strings.Contains(string(data), bobToken) {
		t.Errorf("the audit log holds a secret:\n%s", data)
	}
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var rec struct{ Client, Server, Tool, Outcome string }
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("audit line %q: %v", line, err)
		}
		got = append(got, rec.Server+"/"+rec.Tool+" "+rec.Client+" "+rec.Outcome)
	}
	want := map[string]int{
		"tracker/create_issue alice ok": 1, "tracker/create_issue bob ok": 1, "tracker/show_issue alice ok": 2,
		"agent/create_task bob ok": 1, "rulesets/upsert_ruleset alice ok": 1, "rulesets/upsert_ruleset bob ok": 1,
		"coding/read_file bob ok": 1, "coding/read_file bob error": 1,
	}
	counts := map[string]int{}
	for _, g := range got {
		counts[g]++
	}
	if len(got) != 9 || len(counts) != len(want) {
		t.Errorf("audit lines %q, want %v", got, want)
	}
	for k, n := range want {
		if counts[k] != n {
			t.Errorf("audit: %d lines %q, want %d (all: %q)", counts[k], k, n, got)
		}
	}

	// /metrics, with a token.
	fams, _ := metricstest.Scrape(t, base+mcpx.MetricsPath, aliceToken)
	for _, c := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"sudocode_mcp_tool_calls_total", map[string]string{"server": "tracker", "tool": "create_issue", "outcome": "ok"}, 2},
		{"sudocode_mcp_tool_calls_total", map[string]string{"server": "tracker", "tool": "show_issue", "outcome": "ok"}, 2},
		{"sudocode_mcp_tool_calls_total", map[string]string{"server": "agent", "tool": "create_task", "outcome": "ok"}, 1},
		{"sudocode_mcp_tool_calls_total", map[string]string{"server": "rulesets", "tool": "upsert_ruleset", "outcome": "ok"}, 2},
		{"sudocode_mcp_tool_calls_total", map[string]string{"server": "coding", "tool": "read_file", "outcome": "ok"}, 1},
		{"sudocode_mcp_tool_calls_total", map[string]string{"server": "coding", "tool": "read_file", "outcome": "error"}, 1},
		{"sudocode_mcp_tool_errors_total", map[string]string{"server": "coding", "tool": "read_file"}, 1},
		{"sudocode_mcp_tool_call_duration_seconds", map[string]string{"server": "tracker", "tool": "create_issue"}, 2},
		{"sudocode_mcp_sessions", map[string]string{"server": "tracker"}, 2},
		{"sudocode_mcp_sessions", map[string]string{"server": "agent"}, 1},
		{"sudocode_mcp_sessions", map[string]string{"server": "rulesets"}, 2},
		{"sudocode_mcp_sessions", map[string]string{"server": "coding"}, 1},
		{"sudocode_tasks", map[string]string{"status": "pending"}, 0},
	} {
		if got := metricstest.Sample(fams, c.name, c.labels); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
	total := 0.0
	for _, m := range fams["sudocode_tasks"].GetMetric() {
		total += m.GetGauge().GetValue()
	}
	if total != 1 {
		t.Errorf("sudocode_tasks sums to %v, want 1 task", total)
	}
}

// The dashboard takes any token of the file, as a header or once in the
// address (which sets its cookie).
func TestServeDashboardTakesTokenFile(t *testing.T) {
	base, _, _ := team(t, nil)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for token, want := range map[string]int{"": 401, "wrong": 401, aliceToken: 200, bobToken: 200} {
		req, _ := http.NewRequest(http.MethodGet, base+"/api/issues", nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("/api/issues with %q: %d, want %d", token, resp.StatusCode, want)
		}
	}
	resp, err := client.Get(base + "/?token=" + bobToken)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	var cookie *http.Cookie
	for _, c := range resp.Cookies() {
		cookie = c
	}
	if resp.StatusCode != http.StatusSeeOther || cookie == nil || cookie.Value == bobToken {
		t.Fatalf("/?token=: %d, cookie %+v", resp.StatusCode, cookie)
	}
	req, _ := http.NewRequest(http.MethodGet, base+"/api/issues", nil)
	req.AddCookie(cookie)
	if resp, err = client.Do(req); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("/api/issues with the cookie: %d", resp.StatusCode)
	}
}

// The rate limits span the four servers: a client over its limit is
// refused everywhere, with retry_after_ms, while another keeps working.
func TestServeRateLimitPerClient(t *testing.T) {
	perClient, _ := mcpx.ParseRate("3/m")
	base, _, _ := team(t, mcpx.NewLimiter(perClient, nil))
	alice := map[string]*mcp.ClientSession{}
	for _, p := range []string{serve.PathTracker, serve.PathCoding} {
		alice[p] = as(t, base+p, aliceToken)
	}
	bob := as(t, base+serve.PathTracker, bobToken)
	for range 3 {
		if _, err := alice[serve.PathTracker].CallTool(t.Context(), &mcp.CallToolParams{Name: "ready"}); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{serve.PathTracker, serve.PathCoding} {
		tool := map[string]string{serve.PathTracker: "ready", serve.PathCoding: "list_dir"}[p]
		_, err := alice[p].CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: map[string]any{}})
		var rpcErr *jsonrpc.Error
		if !errors.As(err, &rpcErr) || rpcErr.Code != mcpx.CodeRateLimited || !strings.Contains(string(rpcErr.Data), `"retry_after_ms"`) {
			t.Errorf("%s: alice's fourth call: %v, want a rate-limit error", p, err)
		}
	}
	for range 3 {
		if _, err := bob.CallTool(t.Context(), &mcp.CallToolParams{Name: "ready"}); err != nil {
			t.Errorf("bob: %v", err)
		}
	}
}
