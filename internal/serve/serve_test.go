package serve_test

import (
	"bufio"
	"context"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/orchestrator"
	"github.com/sudocode/sudocode/internal/rulesets/sqlitestore"
	"github.com/sudocode/sudocode/internal/serve"
	"github.com/sudocode/sudocode/internal/testkit"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

// project makes a git repository with one commit and a tracker.
func project(t *testing.T) string {
	t.Helper()
	dir := testkit.RepoOf(t, map[string]string{"README.md": "# hello\n"})
	if _, err := store.Init(dir, "demo"); err != nil {
		t.Fatal(err)
	}
	return dir
}

// site is a running sudocode serve, as a client reaches it.
type site struct{ URL string }

// testToken is the token of a server started with neither a token nor a
// token file: connect sends it unless told otherwise.
const testToken = "serve-test-token-0123456789"

// start runs sudocode serve over dir on a free loopback port, as the
// command does (Server.Serve), until the test ends. Without Token, Auth or
// NoAuth, the server's token is testToken.
func start(t *testing.T, dir string, o serve.Options) (*site, *serve.Server) {
	t.Helper()
	if o.Token == "" && o.Auth == nil && !o.NoAuth {
		o.Token = testToken
	}
	rs, err := sqlitestore.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	o.Dir, o.Rulesets, o.Version = dir, rs, "test"
	if o.Worktrees == "" {
		o.Worktrees = t.TempDir() // not the user's state directory
	}
	srv, err := serve.New(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
		srv.Close()
		rs.Close()
	})
	return &site{URL: "http://" + ln.Addr().String()}, srv
}

type headerTransport struct {
	header map[string]string
}

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h.header {
		r.Header.Set(k, v)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// connect opens an MCP session at url with header; without an
// Authorization in header, it sends testToken.
func connect(t *testing.T, url string, header map[string]string) (*mcp.ClientSession, error) {
	t.Helper()
	if _, ok := header["Authorization"]; !ok {
		header = maps.Clone(header)
		if header == nil {
			header = map[string]string{}
		}
		header["Authorization"] = "Bearer " + testToken
	}
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(20*time.Second))
	defer cancel()
	s, err := mcp.NewClient(&mcp.Implementation{Name: "serve-test", Version: "0"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: headerTransport{header}}, MaxRetries: -1},
		// A client of 2025-11-25 holds a session, which the team
		// tests count; 2026-07-28 clients are cli's
		// TestServeNegotiatesEveryRevision.
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err == nil {
		t.Cleanup(func() { s.Close() })
	}
	return s, err
}

func toolNames(t *testing.T, s *mcp.ClientSession) []string {
	t.Helper()
	res, err := s.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	return names
}

func TestEndpoints(t *testing.T) {
	dir := project(t)
	ts, srv := start(t, dir, serve.Options{})
	if srv.Tasks == nil {
		t.Fatalf("no orchestrator: %s", srv.TasksUnavailable)
	}
	for path, tool := range map[string]string{serve.PathTracker: "ready", serve.PathRulesets: "list_rulesets", serve.PathCoding: "read_file"} {
		s, err := connect(t, ts.URL+path, nil)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if names := toolNames(t, s); !slices.Contains(names, tool) {
			t.Errorf("%s lists %v, want %s among them", path, names, tool)
		}
	}
	// The coding tools work on the project directory.
	s, _ := connect(t, ts.URL+serve.PathCoding, nil)
	res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": "README.md"}})
	if err != nil || res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "# hello") {
		t.Errorf("read_file README.md: %v %+v", err, res)
	}
	// The tracker server uses the project's tracker.
	tr, _ := connect(t, ts.URL+serve.PathTracker, nil)
	res, err = tr.CallTool(context.Background(), &mcp.CallToolParams{Name: "create_issue", Arguments: map[string]any{"title": "over serve"}})
	if err != nil || res.IsError {
		t.Fatalf("create_issue: %v %+v", err, res)
	}
	r, err := store.Open(context.Background(), filepath.Join(dir, store.DirName), "t")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if l, err := r.ListIssues(context.Background(), store.IssueFilter{}); err != nil || l.Total != 1 || l.Issues[0].Title != "over serve" {
		t.Errorf("issues in the project: %+v %v", l, err)
	}
	resp, err := withToken(t, "POST", ts.URL+"/mcp/nothing", "{}")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("/mcp/nothing: %d, want 404", resp.StatusCode)
	}
	eps := srv.Endpoints()
	if len(eps) != 4 || eps[0].Path != serve.PathTracker || eps[3].Path != serve.PathAgent {
		t.Errorf("endpoints %+v", eps)
	}
}

// withToken sends a request with testToken as its bearer token.
func withToken(t *testing.T, method, url, body string) (*http.Response, error) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	return http.DefaultClient.Do(req)
}

func post(t *testing.T, url string, header map[string]string) int {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestSecurity: with a token, every endpoint answers 401 without it; a
// foreign Origin is 403 with or without it; the token and a good origin
// get through.
func TestSecurity(t *testing.T) {
	dir := project(t)
	ts, _ := start(t, dir, serve.Options{Token: "s3cret"})
	good := map[string]string{"Authorization": "Bearer s3cret"}
	for _, path := range serve.Paths() {
		if code := post(t, ts.URL+path, nil); code != http.StatusUnauthorized {
			t.Errorf("%s without the token: %d, want 401", path, code)
		}
		if code := post(t, ts.URL+path, map[string]string{"Authorization": "Bearer wrong"}); code != http.StatusUnauthorized {
			t.Errorf("%s with a wrong token: %d, want 401", path, code)
		}
		if code := post(t, ts.URL+path, map[string]string{"Authorization": "Bearer s3cret", "Origin": "https://evil.example"}); code != http.StatusForbidden {
			t.Errorf("%s from a foreign origin: %d, want 403", path, code)
		}
		if code := post(t, ts.URL+path, map[string]string{"Origin": "https://evil.example"}); code != http.StatusForbidden {
			t.Errorf("%s from a foreign origin without the token: %d, want 403", path, code)
		}
	}
	for _, path := range []string{serve.PathTracker, serve.PathRulesets, serve.PathCoding} {
		s, err := connect(t, ts.URL+path, good)
		if err != nil {
			t.Errorf("%s with the token: %v", path, err)
			continue
		}
		toolNames(t, s)
		if _, err := connect(t, ts.URL+path, map[string]string{"Authorization": "Bearer s3cret", "Origin": "http://localhost:3000"}); err != nil {
			t.Errorf("%s from a loopback origin: %v", path, err)
		}
	}
	// The dashboard too needs the token.
	for _, path := range []string{"/", "/api/issues", "/api/events"} {
		resp, err := http.Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s without the token: %d, want 401", path, resp.StatusCode)
		}
	}
	// Bodies are capped.
	req, _ := http.NewRequest("POST", ts.URL+serve.PathTracker, strings.NewReader(strings.Repeat("x", 5<<20)))
	req.Header.Set("Authorization", "Bearer s3cret")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("a 5 MiB body: %d, want 413", resp.StatusCode)
	}
}

// TestOutsideGit: outside a git repository the servers that can run do, and
// tasks say why they cannot.
func TestOutsideGit(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	ts, srv := start(t, dir, serve.Options{})
	if srv.Tasks != nil || !strings.Contains(srv.TasksUnavailable, "not in a git repository") {
		t.Fatalf("orchestrator %v, reason %q", srv.Tasks, srv.TasksUnavailable)
	}
	resp, err := withToken(t, "POST", ts.URL+serve.PathAgent, "{}")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "not in a git repository") {
		t.Errorf("%s: %d %s", serve.PathAgent, resp.StatusCode, body)
	}
	s, err := connect(t, ts.URL+serve.PathTracker, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: "init", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("init: %v %+v", err, res)
	}
	if _, err := os.Stat(filepath.Join(dir, store.DirName, store.ConfigFile)); err != nil {
		t.Errorf("init did not create the tracker in the project: %v", err)
	}
}

// TestRulesetChangesArePushed: an upsert through /mcp/rulesets reaches an
// open dashboard at once, pushed (its event says so), not found by the
// next poll.
func TestRulesetChangesArePushed(t *testing.T) {
	dir := project(t)
	ts, _ := start(t, dir, serve.Options{})
	resp, err := withToken(t, "GET", ts.URL+"/api/events", "")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got := make(chan string, 16) // "name data"
	go func() {
		sc := bufio.NewScanner(resp.Body)
		name := ""
		for sc.Scan() {
			if n, ok := strings.CutPrefix(sc.Text(), "event: "); ok {
				name = n
			} else if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				got <- name + " " + data
			}
		}
	}()
	s, err := connect(t, ts.URL+serve.PathRulesets, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: "upsert_ruleset",
		Arguments: map[string]any{"name": "pushed", "description": "d", "markdown": "# m"}})
	if err != nil || res.IsError {
		t.Fatalf("upsert: %v %+v", err, res)
	}
	for {
		select {
		case e := <-got:
			if name, data, _ := strings.Cut(e, " "); name == "rulesets" {
				if data != `{"source":"push"}` {
					t.Errorf("the change reached the page as %s, want it pushed", data)
				}
				return
			}
		case <-time.After(testkit.Scale(5 * time.Second)):
			t.Fatalf("waited %v for a rulesets event", testkit.Scale(5*time.Second))
		}
	}
}

// The task store is found the same way by sudocode serve and sudocode mcp
// agent: from a subdirectory, and whatever GIT_DIR says in the server's
// environment.
func TestTaskDataDir(t *testing.T) {
	dir := project(t)
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GIT_DIR", filepath.Join(project(t), ".git"))
	t.Setenv("GIT_COMMON_DIR", t.TempDir())
	got, err := orchestrator.DataDir(context.Background(), sub)
	if want := filepath.Join(dir, ".git", "sudocode"); err != nil || got != want {
		t.Errorf("DataDir(sub) = %q, %v; want %s", got, err, want)
	}
}
