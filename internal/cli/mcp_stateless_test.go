package cli_test

// Run stateless (--stateless), any instance of a server answers any
// request: two instances behind one load balancer that alternates between
// them serve a client of every revision, each call seeing what the
// previous one (on the other instance) wrote to the shared store.

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/testkit"
)

// alternating is a load balancer that sends each request to the next of
// its backends in turn, and counts the requests that carried a session.
type alternating struct {
	backends []*httputil.ReverseProxy
	next     atomic.Int64
	sessions atomic.Int64
}

func newAlternating(t *testing.T, urls ...string) string {
	lb := &alternating{}
	for _, u := range urls {
		target, err := url.Parse(strings.TrimSuffix(u, "/mcp"))
		if err != nil {
			t.Fatal(err)
		}
		p := httputil.NewSingleHostReverseProxy(target)
		p.FlushInterval = -1 // stream SSE as it comes
		lb.backends = append(lb.backends, p)
	}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Mcp-Session-Id") != "" {
			lb.sessions.Add(1)
		}
		// The backends serve the loopback Host they were started on.
		r.Host = ""
		lb.backends[lb.next.Add(1)%int64(len(lb.backends))].ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		ts.Close()
		if n := lb.sessions.Load(); n > 0 {
			t.Errorf("%d requests carried an Mcp-Session-Id through the load balancer", n)
		}
	})
	return ts.URL + "/mcp"
}

// statelessCase is a server run twice on one store, and calls that each
// depend on the one before.
type statelessCase struct {
	name  string
	args  func(t *testing.T) []string // the same store for both instances
	env   func(t *testing.T) []string
	calls func(t *testing.T, cs *mcp.ClientSession, revision string)
}

func TestStatelessInstancesBehindALoadBalancer(t *testing.T) {
	cases := []statelessCase{
		{
			name: "tracker",
			args: func(t *testing.T) []string { return []string{"mcp", "--stateless", "--http", "127.0.0.1:0"} },
			env:  func(t *testing.T) []string { return childEnv(t, "SUDOCODE_WORKING_DIR="+t.TempDir()) },
			calls: func(t *testing.T, cs *mcp.ClientSession, revision string) {
				lbCall(t, cs, "init", map[string]any{})
				lbCall(t, cs, "create_issue", map[string]any{"title": "Filed over " + revision})
				if out := lbCall(t, cs, "list_issues", map[string]any{}); !strings.Contains(out, "Filed over "+revision) {
					t.Errorf("list_issues on the other instance misses the new issue: %s", out)
				}
			},
		},
		{
			name: "rulesets",
			args: func(t *testing.T) []string {
				return []string{"mcp", "rulesets", "--stateless", "--http", "127.0.0.1:0"}
			},
			env: func(t *testing.T) []string { env, _ := valkeyEnv(t); return env },
			calls: func(t *testing.T, cs *mcp.ClientSession, revision string) {
				name := "lb_" + strings.ReplaceAll(revision, "-", "_")
				lbCall(t, cs, "upsert_ruleset", map[string]any{"name": name, "description": "Shared", "markdown": "# " + revision})
				if out := lbCall(t, cs, "get_ruleset", map[string]any{"name": name}); !strings.Contains(out, "# "+revision) {
					t.Errorf("get_ruleset on the other instance: %s", out)
				}
			},
		},
		{
			name: "coding",
			args: func(t *testing.T) []string {
				return []string{"mcp", "coding", "--stateless", "--workspace", t.TempDir(), "--port", "0"}
			},
			env: func(t *testing.T) []string { return childEnv(t) },
			calls: func(t *testing.T, cs *mcp.ClientSession, revision string) {
				file := revision + ".txt"
				lbCall(t, cs, "apply_patch", map[string]any{"patch": "*** Begin Patch\n*** Add File: " + file + "\n+" + revision + "\n*** End Patch\n"})
				if out := lbCall(t, cs, "read_file", map[string]any{"path": file}); !strings.Contains(out, revision) {
					t.Errorf("read_file on the other instance: %s", out)
				}
			},
		},
		{
			name: "agent",
			args: func(t *testing.T) []string {
				return []string{"mcp", "agent", "--stateless", "--project", testkit.Repo(t), "--data", t.TempDir(), "--http", "127.0.0.1:0"}
			},
			env: func(t *testing.T) []string { return childEnv(t) },
			calls: func(t *testing.T, cs *mcp.ClientSession, revision string) {
				out := lbCall(t, cs, "create_task", map[string]any{"tool": "COMMAND", "description": "Over " + revision,
					"config": map[string]any{"command": []string{"sh", "-c", "echo done"}}})
				var created struct {
					StructuredContent struct {
						Result struct {
							TaskID string `json:"taskId"`
						} `json:"result"`
					} `json:"structuredContent"`
				}
				json.Unmarshal([]byte(out), &created)
				id := created.StructuredContent.Result.TaskID
				if id == "" {
					t.Fatalf("create_task: %s", out)
				}
				if out := lbCall(t, cs, "report_task", map[string]any{"taskId": id}); !strings.Contains(out, "Over "+revision) {
					t.Errorf("report_task on the other instance: %s", out)
				}
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := c.env(t)
			args := c.args(t)
			a := startHTTP(t, env, sudocodeBin, args...)
			b := startHTTP(t, env, sudocodeBin, args...)
			lb := newAlternating(t, a.url, b.url)
			for _, revision := range []string{"2026-07-28", "2025-11-25", "2025-06-18"} {
				ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(20*time.Second))
				cs, err := mcp.NewClient(&mcp.Implementation{Name: "lb-test", Version: "0"}, nil).Connect(ctx,
					&mcp.StreamableClientTransport{Endpoint: lb, MaxRetries: -1, DisableStandaloneSSE: true, HTTPClient: stateTokenClient(env)},
					&mcp.ClientSessionOptions{ProtocolVersion: revision})
				cancel()
				if err != nil {
					t.Fatalf("%s through the load balancer: %v", revision, err)
				}
				c.calls(t, cs, revision)
				cs.Close()
			}
		})
	}
}

// lbCall calls a tool that must succeed and returns its result as JSON
// text.
func lbCall(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(20*time.Second))
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	b, _ := json.Marshal(res)
	if res.IsError {
		t.Fatalf("%s: %s", tool, b)
	}
	return string(b)
}

// Without sessions, an exec session of the coding tools still belongs to
// the client (token) that started it: bob cannot write to alice's
// command, alice can, each request on its own.
func TestExecSessionOwnershipWithoutSessions(t *testing.T) {
	env := childEnv(t)
	tokens := teamTokenFile(t)
	connect := func(t *testing.T, url, token string) *mcp.ClientSession {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(20*time.Second))
		defer cancel()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "owner-test", Version: "0"}, nil).Connect(ctx,
			&mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1, DisableStandaloneSSE: true,
				HTTPClient: &http.Client{Transport: &watchingTransport{header: map[string]string{"Authorization": "Bearer " + token}, base: http.DefaultTransport}}},
			nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	structured := func(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) (map[string]any, bool) {
		t.Helper()
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		b, _ := json.Marshal(res.StructuredContent)
		var m map[string]any
		json.Unmarshal(b, &m)
		return m, res.IsError
	}

	srv := startHTTP(t, env, sudocodeBin, "mcp", "coding", "--stateless", "--workspace", t.TempDir(), "--port", "0", "--token-file", tokens)
	alice, bob := connect(t, srv.url, teamAlice), connect(t, srv.url, teamBob)
	started, _ := structured(t, alice, "exec_command", map[string]any{"cmd": "cat", "tty": true, "yield_time_ms": 200})
	id, _ := started["session_id"].(string)
	if id == "" {
		t.Fatalf("exec_command: %v", started)
	}
	if out, isErr := structured(t, bob, "write_stdin", map[string]any{"session_id": id, "chars": "bob\n"}); !isErr && out["ok"] != false {
		t.Errorf("bob wrote to alice's command: %v", out)
	}
	if out, _ := structured(t, alice, "write_stdin", map[string]any{"session_id": id, "chars": "alice\n"}); out["ok"] != true {
		t.Errorf("alice cannot write to her own command: %v", out)
	}
	structured(t, alice, "kill_session", map[string]any{"session_id": id})
}

// Two orchestrator instances on one task database: a client subscribed on
// one hears of a task another one started (and of its end), as it would
// from a single instance.
func TestAgentUpdatesReachEveryInstance(t *testing.T) {
	env := childEnv(t)
	args := []string{"mcp", "agent", "--stateless", "--project", testkit.Repo(t), "--data", t.TempDir(), "--http", "127.0.0.1:0"}
	a := startHTTP(t, env, sudocodeBin, args...)
	b := startHTTP(t, env, sudocodeBin, args...)

	updates := make(chan string, 100)
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(20*time.Second))
	defer cancel()
	listener, err := mcp.NewClient(&mcp.Implementation{Name: "listener", Version: "0"}, &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			updates <- req.Params.URI
		},
	}).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: b.url, MaxRetries: -1, HTTPClient: stateTokenClient(env)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer listener.Close()
	if err := listener.Subscribe(ctx, &mcp.SubscribeParams{URI: "task://list"}); err != nil {
		t.Fatalf("subscribe to task://list on B: %v", err)
	}

	starter, err := mcp.NewClient(&mcp.Implementation{Name: "starter", Version: "0"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: a.url, MaxRetries: -1, HTTPClient: stateTokenClient(env)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer starter.Close()
	lbCall(t, starter, "create_task", map[string]any{"tool": "COMMAND", "description": "Started on A",
		"config": map[string]any{"command": []string{"sh", "-c", "echo done"}}})
	select {
	case uri := <-updates:
		if uri != "task://list" {
			t.Errorf("update for %s, want task://list", uri)
		}
	case <-time.After(testkit.Scale(10 * time.Second)):
		t.Fatal("B's subscriber heard nothing of the task A started")
	}
}
