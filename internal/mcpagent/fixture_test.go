package mcpagent_test

import (
	"context"
	"encoding/json"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/app"
	"github.com/sudocode/sudocode/internal/mcpagent"
	"github.com/sudocode/sudocode/internal/mcpx/schematest"
	"github.com/sudocode/sudocode/internal/orchestrator"
	"github.com/sudocode/sudocode/internal/orchestrator/agent"
	"github.com/sudocode/sudocode/internal/testkit"
)

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func lookup(kind string) (agent.Adapter, bool) {
	a, err := agent.Lookup(kind)
	return a, err == nil
}

// fixture is an agent server over a fresh repository, reached by an SDK
// client over in-memory transports.
type fixture struct {
	t       *testing.T
	repo    string
	orch    *orchestrator.Orchestrator
	cs      *mcp.ClientSession
	schemas *schematest.Checker // every result is checked against its tool's output schema

	mu       sync.Mutex
	updated  []string
	progress []*mcp.ProgressNotificationParams
	wake     chan struct{}
}

func newFixture(t *testing.T) *fixture { return newFixtureAt(t, testkit.Repo(t)) }

// follow makes orch follow its tasks' issues in the tracker of its
// repository, as a project's tasks do.
func follow(t testing.TB, orch *orchestrator.Orchestrator) *orchestrator.Orchestrator {
	tr := app.NewTracker(orch.Repo(), mcpagent.Name)
	t.Cleanup(func() { tr.Close() }) // before the orchestrator's close: a duty cut off is the next process's, as after a kill
	orch.FollowIssues(app.TaskIssues(tr, nil, mcpagent.Name))
	return orch
}

func newFixtureAt(t *testing.T, repo string) *fixture {
	t.Helper()
	ctx := context.Background()
	store, err := orchestrator.OpenStore(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	orch := orchestrator.New(store, lookup, orchestrator.Options{Repo: repo, Grace: time.Second})
	t.Cleanup(func() { orch.Close(); store.Close() })
	f := &fixture{t: t, repo: repo, orch: orch, wake: make(chan struct{}, 1)}
	lp := follow(t, orch)
	server := mcpagent.New(lp, mcpagent.Options{Version: "test"})
	t.Cleanup(server.Close)
	ct, st := mcp.NewInMemoryTransports()
	if _, err := server.Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			f.mu.Lock()
			f.updated = append(f.updated, req.Params.URI)
			f.mu.Unlock()
			f.poke()
		},
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			f.mu.Lock()
			f.progress = append(f.progress, req.Params)
			f.mu.Unlock()
			f.poke()
		},
	})
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	f.cs = cs
	f.schemas = schematest.New(t, cs)
	return f
}

func (f *fixture) poke() {
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

// response is a tool's answer in the response shape (docs/servers.md#agent-responses).
type response struct {
	Status  string          `json:"status"`
	Message string          `json:"message"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Type    string          `json:"type"`
		Details json.RawMessage `json:"details"`
	} `json:"error"`
	isError bool
}

// call calls a tool and checks the answer's form: structured content in
// the response shape, the same JSON as text, isError iff status is "error".
func (f *fixture) call(name string, args map[string]any) response {
	f.t.Helper()
	return f.callWith(&mcp.CallToolParams{Name: name, Arguments: args})
}

func (f *fixture) callWith(p *mcp.CallToolParams) response {
	f.t.Helper()
	res, err := f.cs.CallTool(context.Background(), p)
	if err != nil {
		f.t.Fatalf("%s: %v", p.Name, err)
	}
	if len(res.Content) != 1 {
		f.t.Fatalf("%s: %d content items", p.Name, len(res.Content))
	}
	text := res.Content[0].(*mcp.TextContent).Text
	f.schemas.Check(f.t, p.Name, res)
	structured, err := json.Marshal(res.StructuredContent)
	if err != nil {
		f.t.Fatal(err)
	}
	if !jsonEqual(text, string(structured)) {
		f.t.Fatalf("%s: text mirror differs from structured content:\n%s\n%s", p.Name, text, structured)
	}
	var r response
	if err := json.Unmarshal([]byte(text), &r); err != nil {
		f.t.Fatalf("%s: %v: %s", p.Name, err, text)
	}
	r.isError = res.IsError
	if (r.Status == "error") != res.IsError || (r.Status != "error" && r.Status != "success") || r.Message == "" {
		f.t.Fatalf("%s: status %q with isError %v: %s", p.Name, r.Status, res.IsError, text)
	}
	if (r.Error != nil) != (r.Status == "error") || (r.Error != nil && r.Error.Type == "") {
		f.t.Fatalf("%s: error body does not match status: %s", p.Name, text)
	}
	return r
}

func jsonEqual(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}

// mustSucceed calls a tool that must succeed and decodes its result into out.
func (f *fixture) mustSucceed(name string, args map[string]any, out any) response {
	f.t.Helper()
	r := f.call(name, args)
	if r.Status != "success" {
		f.t.Fatalf("%s: %s (%+v)", name, r.Message, r.Error)
	}
	if out != nil {
		if err := json.Unmarshal(r.Result, out); err != nil {
			f.t.Fatalf("%s result: %v: %s", name, err, r.Result)
		}
	}
	return r
}

type created struct {
	TaskID string `json:"taskId"`
	Task   struct {
		ID           string `json:"id"`
		Status       string `json:"status"`
		Branch       string `json:"branch"`
		WorktreePath string `json:"worktree_path"`
		SessionID    string `json:"session_id"`
	} `json:"task"`
}

// command starts a COMMAND task running sh -c script.
func (f *fixture) command(desc, script string, extra map[string]any) created {
	f.t.Helper()
	args := map[string]any{"tool": "COMMAND", "description": desc, "config": map[string]any{"command": []string{"sh", "-c", script}}}
	for k, v := range extra {
		args[k] = v
	}
	var c created
	f.mustSucceed("create_task", args, &c)
	return c
}

// wait waits until task id's agent stopped and returns its status.
func (f *fixture) wait(id string) orchestrator.Task {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := f.orch.Wait(ctx, id); err != nil {
		f.t.Fatalf("task %s still running: %v", id, err)
	}
	t, err := f.orch.Get(ctx, id)
	if err != nil {
		f.t.Fatal(err)
	}
	return t
}

// read reads a resource's single text.
func (f *fixture) read(uri string) (string, string) {
	f.t.Helper()
	res, err := f.cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		f.t.Fatalf("read %s: %v", uri, err)
	}
	if len(res.Contents) != 1 || res.Contents[0].URI != uri {
		f.t.Fatalf("read %s: contents %+v", uri, res.Contents)
	}
	return res.Contents[0].Text, res.Contents[0].MIMEType
}

// until waits for cond, re-checking it after each notification.
func (f *fixture) until(what string, cond func() bool) {
	f.t.Helper()
	deadline := time.After(20 * time.Second)
	for !cond() {
		select {
		case <-f.wake:
		case <-time.After(50 * time.Millisecond):
		case <-deadline:
			f.t.Fatalf("timed out waiting for %s", what)
		}
	}
}
