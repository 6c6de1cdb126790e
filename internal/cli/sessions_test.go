package cli_test

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/mcpx/metricstest"
	"github.com/sudocode/sudocode/internal/testkit"
)

const teamCarol = "carol-0123456789abcdef0123456789"

// threeTokens is a token file naming alice, bob and carol.
func threeTokens(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tokens")
	if err := os.WriteFile(path, []byte("alice "+teamAlice+"\nbob "+teamBob+"\ncarol "+teamCarol+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// rpcReply is an HTTP answer to one JSON-RPC POST.
type rpcReply struct {
	status  int
	session string // Mcp-Session-Id
	body    string
	err     *struct {
		Code    int            `json:"code"`
		Message string         `json:"message"`
		Data    map[string]any `json:"data"`
	}
}

// post sends one JSON-RPC message with token and session ("" for none) and
// reads the answer, a JSON body or one SSE event.
func post(t *testing.T, url, token, session, msg string) rpcReply {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(msg))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	r := rpcReply{status: resp.StatusCode, session: resp.Header.Get("Mcp-Session-Id"), body: string(b)}
	data := string(b)
	if i := strings.Index(data, "data: "); i >= 0 && strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		data, _, _ = strings.Cut(data[i+len("data: "):], "\n")
	}
	var env struct {
		Error *struct {
			Code    int            `json:"code"`
			Message string         `json:"message"`
			Data    map[string]any `json:"data"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(data), &env) == nil {
		r.err = env.Error
	}
	return r
}

const initMsg = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`

// initialize opens a session as the client of token.
func initialize(t *testing.T, url, token string) rpcReply {
	t.Helper()
	return post(t, url, token, "", initMsg)
}

// With a token file, a coding session belongs to the client that opened
// it, as on the other servers: another client's token on it is 403, and
// that client gets a session of its own. Alone and under serve.
func TestCodingSessionBelongsToItsClient(t *testing.T) {
	t.Parallel()
	tokens := threeTokens(t)
	alone := startHTTP(t, childEnv(t), sudocodeBin, "mcp", "coding", "--workspace", t.TempDir(), "--port", "0", "--token-file", tokens)
	_, doc := startServe(t, childEnv(t), true, "--addr", "127.0.0.1:0", "--dir", serveRepo(t), "--json", "--token-file", tokens)
	var info struct {
		MCP map[string]string `json:"mcp"`
	}
	if err := json.Unmarshal([]byte(doc), &info); err != nil {
		t.Fatal(err)
	}
	for name, url := range map[string]string{"sudocode mcp coding": alone.url, "serve /mcp/coding": info.MCP["coding"]} {
		a := initialize(t, url, teamAlice)
		if a.status != http.StatusOK || a.session == "" {
			t.Fatalf("%s: alice's initialize: %d %q session %q", name, a.status, short(a.body), a.session)
		}
		list := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
		if r := post(t, url, teamAlice, a.session, list); r.status != http.StatusOK || r.err != nil {
			t.Errorf("%s: alice on her session: %d %s", name, r.status, short(r.body))
		}
		r := post(t, url, teamBob, a.session, list)
		if r.status != http.StatusForbidden || r.err == nil || !strings.Contains(r.err.Message, "another client") {
			t.Errorf("%s: bob on alice's session: %d %s; want 403 and a JSON-RPC error", name, r.status, short(r.body))
		}
		if r.session == a.session {
			t.Errorf("%s: bob was told alice's session id", name)
		}
		b := initialize(t, url, teamBob)
		if b.status != http.StatusOK || b.session == "" || b.session == a.session {
			t.Errorf("%s: bob's initialize: %d session %q (alice's %q); want a session of his own", name, b.status, b.session, a.session)
		}
		if r := post(t, url, teamBob, b.session, list); r.status != http.StatusOK || r.err != nil {
			t.Errorf("%s: bob on his session: %d %s", name, r.status, short(r.body))
		}
		// Bob's session was initialized by bob only: alice's initialize
		// did not initialize it.
		c := post(t, url, teamCarol, "", list)
		if c.err == nil || c.err.Code != -32002 {
			t.Errorf("%s: carol's tools/list before her initialize: %s; want -32002", name, short(c.body))
		}
	}
}

// liveSessions reads the rulesets server's sudocode_mcp_sessions at url.
func liveSessions(t *testing.T, url string) float64 {
	fams, _ := metricstest.Scrape(t, strings.TrimSuffix(url, "/mcp")+"/metrics", teamAlice)
	return metricstest.Sample(fams, "sudocode_mcp_sessions", map[string]string{"server": "rulesets"})
}

// Sessions are capped per client and in total, answered with a JSON-RPC
// error naming the limit; closing one (DELETE) frees its place.
func TestSessionLimits(t *testing.T) {
	t.Parallel()
	env := childEnv(t, "SUDOCODE_MAX_SESSIONS_PER_CLIENT=3", "SUDOCODE_MAX_SESSIONS=5")
	srv := startHTTP(t, env, sudocodeBin, "mcp", "rulesets", "--http", "127.0.0.1:0", "--store", t.TempDir(), "--token-file", threeTokens(t))
	var alice []string
	for i := range 3 {
		r := initialize(t, srv.url, teamAlice)
		if r.status != http.StatusOK || r.session == "" {
			t.Fatalf("alice's session %d: %d %s", i+1, r.status, short(r.body))
		}
		alice = append(alice, r.session)
	}
	r := initialize(t, srv.url, teamAlice)
	if r.status != http.StatusTooManyRequests || r.err == nil || r.err.Code != -32030 || r.err.Data["limit"] != "client" ||
		!strings.Contains(r.err.Message, "--max-sessions-per-client") || !strings.Contains(r.err.Message, "DELETE") {
		t.Errorf("alice's 4th session: %d %s; want 429 and error -32030 naming the per-client limit and what to do", r.status, short(r.body))
	}
	for i := range 2 {
		if r := initialize(t, srv.url, teamBob); r.status != http.StatusOK {
			t.Fatalf("bob's session %d: %d %s", i+1, r.status, short(r.body))
		}
	}
	r = initialize(t, srv.url, teamCarol)
	if r.status != http.StatusServiceUnavailable || r.err == nil || r.err.Code != -32030 || r.err.Data["limit"] != "total" ||
		!strings.Contains(r.err.Message, "--max-sessions") {
		t.Errorf("carol's session past the total: %d %s; want 503 and error -32030 naming the total limit", r.status, short(r.body))
	}
	if n := liveSessions(t, srv.url); n != 5 {
		t.Errorf("sudocode_mcp_sessions = %v, want 5", n)
	}

	del, _ := http.NewRequest(http.MethodDelete, srv.url, nil)
	del.Header.Set("Authorization", "Bearer "+teamAlice)
	del.Header.Set("Mcp-Session-Id", alice[0])
	resp, err := http.DefaultClient.Do(del)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE alice's session: %d", resp.StatusCode)
	}
	if r := initialize(t, srv.url, teamCarol); r.status != http.StatusOK {
		t.Errorf("carol after alice closed a session: %d %s; want a session", r.status, short(r.body))
	}
}

// An idle session is closed after the idle timeout, and its place is
// free again.
func TestSessionIdleTimeout(t *testing.T) {
	t.Parallel()
	env := childEnv(t, "SUDOCODE_MAX_SESSIONS_PER_CLIENT=2", "SUDOCODE_SESSION_IDLE_TIMEOUT=1s")
	srv := startHTTP(t, env, sudocodeBin, "mcp", "rulesets", "--http", "127.0.0.1:0", "--store", t.TempDir(), "--token-file", threeTokens(t))
	var alice []string
	for i := range 2 {
		r := initialize(t, srv.url, teamAlice)
		if r.status != http.StatusOK || r.session == "" {
			t.Fatalf("alice's session %d: %d %s", i+1, r.status, short(r.body))
		}
		alice = append(alice, r.session)
	}
	testkit.WaitFor(t, 30*time.Second, "alice's idle sessions to close (sudocode_mcp_sessions 0) after a 1s idle timeout",
		func() bool { return liveSessions(t, srv.url) == 0 })
	if r := post(t, srv.url, teamAlice, alice[1], `{"jsonrpc":"2.0","id":2,"method":"ping"}`); r.status != http.StatusNotFound {
		t.Errorf("an expired session: %d %s, want 404", r.status, short(r.body))
	}
	for i := range 2 {
		if r := initialize(t, srv.url, teamAlice); r.status != http.StatusOK {
			t.Errorf("alice's session %d after the others expired: %d %s", i+1, r.status, short(r.body))
		}
	}
}

// serve shares one session limit across its four servers.
func TestServeSharesSessionLimits(t *testing.T) {
	t.Parallel()
	env := childEnv(t)
	_, doc := startServe(t, env, true, "--addr", "127.0.0.1:0", "--dir", serveRepo(t), "--json", "--max-sessions-per-client", "2")
	var info struct {
		MCP map[string]string `json:"mcp"`
	}
	if err := json.Unmarshal([]byte(doc), &info); err != nil {
		t.Fatal(err)
	}
	token := stateToken(env)
	for _, name := range []string{"tracker", "rulesets"} {
		if r := initialize(t, info.MCP[name], token); r.status != http.StatusOK {
			t.Fatalf("%s: %d %s", name, r.status, short(r.body))
		}
	}
	if r := initialize(t, info.MCP["agent"], token); r.status != http.StatusTooManyRequests || r.err == nil || r.err.Code != -32030 {
		t.Errorf("a third session across serve's servers: %d %s; want 429", r.status, short(r.body))
	}
}

// short is the start of a body, for messages.
func short(body string) string {
	if len(body) > 300 {
		return body[:300] + "…"
	}
	return body
}

// An exec session belongs to the client that started it: another
// client's write_stdin, kill_session or cancellation does not find it.
func TestExecSessionsBelongToTheirClient(t *testing.T) {
	t.Parallel()
	srv := startHTTP(t, childEnv(t), sudocodeBin, "mcp", "coding", "--workspace", t.TempDir(), "--port", "0", "--token-file", threeTokens(t))
	a, b := initialize(t, srv.url, teamAlice), initialize(t, srv.url, teamBob)
	for _, token := range []string{teamAlice, teamBob} {
		session := a.session
		if token == teamBob {
			session = b.session
		}
		post(t, srv.url, token, session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	}
	call := func(token, session, tool, args string) string {
		r := post(t, srv.url, token, session, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"`+tool+`","arguments":`+args+`}}`)
		return r.body
	}
	started := call(teamAlice, a.session, "exec_command", `{"cmd":"cat","tty":true,"yield_time_ms":100}`)
	var res struct {
		Result struct {
			StructuredContent struct {
				SessionID string `json:"session_id"`
			} `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(started), &res); err != nil || res.Result.StructuredContent.SessionID == "" {
		t.Fatalf("exec_command: %s", short(started))
	}
	id := res.Result.StructuredContent.SessionID
	for tool, args := range map[string]string{"write_stdin": `{"session_id":"` + id + `","chars":"hi\n"}`, "kill_session": `{"session_id":"` + id + `"}`} {
		if got := call(teamBob, b.session, tool, args); !strings.Contains(got, "SESSION_NOT_FOUND") {
			t.Errorf("bob's %s on alice's session: %s", tool, short(got))
		}
	}
	post(t, srv.url, teamBob, b.session, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"session_id":"`+id+`"}}`)
	if got := call(teamAlice, a.session, "write_stdin", `{"session_id":"`+id+`","chars":"hi\n","yield_time_ms":2000}`); !strings.Contains(got, `"status":"running"`) {
		t.Errorf("alice's write_stdin after bob's tries: %s", short(got))
	}
	if got := call(teamAlice, a.session, "kill_session", `{"session_id":"`+id+`"}`); !strings.Contains(got, `"ok":true`) {
		t.Errorf("alice's kill_session: %s", short(got))
	}
}
