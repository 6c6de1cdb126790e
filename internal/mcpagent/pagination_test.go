package mcpagent_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/mcpagent"
	"github.com/sudocode/sudocode/internal/mcpx/schematest"
	"github.com/sudocode/sudocode/internal/orchestrator"
	"github.com/sudocode/sudocode/internal/racesize"
	"github.com/sudocode/sudocode/internal/testkit"
)

// pagedFixture is an agent server whose task store the test also writes
// to directly, to have many tasks fast.
type pagedFixture struct {
	*fixture
	store *orchestrator.Store
}

func newPagedFixture(t *testing.T, opts mcpagent.Options) *pagedFixture {
	t.Helper()
	ctx := context.Background()
	repo := testkit.Repo(t)
	store, err := orchestrator.OpenStore(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	orch := orchestrator.New(store, lookup, orchestrator.Options{Repo: repo, Grace: time.Second})
	t.Cleanup(func() { orch.Close(); store.Close() })
	f := &fixture{t: t, repo: repo, orch: orch, wake: make(chan struct{}, 1)}
	if opts.Version == "" {
		opts.Version = "test"
	}
	st, ct := mcp.NewInMemoryTransports()
	lp := follow(t, orch)
	server := mcpagent.New(lp, opts)
	t.Cleanup(server.Close)
	if _, err := server.Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	f.cs = cs
	f.schemas = schematest.New(t, cs)
	return &pagedFixture{fixture: f, store: store}
}

// put stores n finished tasks prefix-…, created a millisecond apart from
// start (ten at a time in the same millisecond).
func (f *pagedFixture) put(prefix string, n int, start time.Time) {
	f.t.Helper()
	ids := make([]string, n)
	for i := range n {
		at := start.Add(time.Duration(i/10) * time.Millisecond)
		status := orchestrator.StatusCompleted
		if i%7 == 0 {
			status = orchestrator.StatusFailed
		}
		ids[i] = fmt.Sprintf("%s-%05d", prefix, n-i) // ids against the order of creation
		t := orchestrator.Task{ID: ids[i], Agent: "COMMAND", Description: "task " + ids[i], Branch: "sudocode/" + ids[i],
			Status: status, CreatedAt: at, UpdatedAt: at}
		if err := f.store.Put(context.Background(), t); err != nil {
			f.t.Fatal(err)
		}
	}
}

// listed returns the ids of every task in list order (the store's, which
// orders by the stored created_at text, then id), with status when given.
func (f *pagedFixture) listed(status orchestrator.Status) []string {
	f.t.Helper()
	all, err := f.store.List(context.Background())
	if err != nil {
		f.t.Fatal(err)
	}
	var ids []string
	for _, t := range all {
		if status == "" || t.Status == status {
			ids = append(ids, t.ID)
		}
	}
	return ids
}

type listPage struct {
	Tasks []struct {
		ID     string `json:"id"`
		Status string `json:"status"`
	} `json:"tasks"`
	Total      int    `json:"total"`
	NextCursor string `json:"nextCursor"`
}

// walk pages through list_tasks, calling between after each page but the
// last, and returns the ids listed and the pages.
func (f *pagedFixture) walk(args map[string]any, between func()) (ids []string, pages []listPage) {
	f.t.Helper()
	a := map[string]any{}
	for k, v := range args {
		a[k] = v
	}
	for {
		var p listPage
		f.mustSucceed("list_tasks", a, &p)
		pages = append(pages, p)
		for _, t := range p.Tasks {
			ids = append(ids, t.ID)
		}
		if p.NextCursor == "" {
			return ids, pages
		}
		if len(pages) > 20_000 {
			f.t.Fatal("no end to the walk")
		}
		if between != nil {
			between()
		}
		a["cursor"] = p.NextCursor
	}
}

// A walk of 10,000 tasks (1,200 under the race detector: still four pages,
// and more than the resources keep) with list_tasks returns each once,
// oldest first, while tasks are created between the pages (older and
// newer than the position reached); the status filter pages too.
func TestListTasksWalkManyTasks(t *testing.T) {
	f := newPagedFixture(t, mcpagent.Options{})
	start := time.Date(2025, 10, 29, 10, 0, 0, 0, time.UTC)
	n := racesize.Of(10_000, 1_200)
	f.put("t", n, start)
	want := f.listed("")
	step := 0
	got, pages := f.walk(map[string]any{"limit": 300}, func() {
		step++
		f.put(fmt.Sprintf("before%d", step), 2, start.Add(-time.Hour))
		f.put(fmt.Sprintf("after%d", step), 2, start.Add(time.Hour))
	})
	seen := map[string]int{}
	var old []string
	for _, id := range got {
		seen[id]++
		if seen[id] > 1 {
			t.Fatalf("%s listed twice", id)
		}
		if strings.HasPrefix(id, "before") {
			t.Errorf("%s, created before the position reached, was listed", id)
		}
		if strings.HasPrefix(id, "t-") {
			old = append(old, id)
		}
	}
	if !slices.Equal(old, want) {
		t.Fatalf("the %d tasks of the start: %d listed, not each once in order", n, len(old))
	}
	if seen["after1-00001"] != 1 {
		t.Errorf("a task created after the position reached was not listed")
	}
	if len(pages) < n/300 || pages[0].Total != n {
		t.Errorf("%d pages, total %d", len(pages), pages[0].Total)
	}

	// Only the failed ones, in pages of the default size.
	failed, pages := f.walk(map[string]any{"status": "failed"}, nil)
	var wantFailed []string
	for _, id := range f.listed(orchestrator.StatusFailed) {
		if strings.HasPrefix(id, "t-") {
			wantFailed = append(wantFailed, id)
		}
	}
	for _, id := range failed {
		if !strings.HasPrefix(id, "t-") {
			continue // the before/after tasks of the walk above
		}
		if len(wantFailed) == 0 || id != wantFailed[0] {
			t.Fatalf("failed tasks out of order at %s", id)
		}
		wantFailed = wantFailed[1:]
	}
	if len(wantFailed) != 0 || len(pages[0].Tasks) != 50 {
		t.Errorf("%d failed tasks not listed; first page %d", len(wantFailed), len(pages[0].Tasks))
	}
	for _, p := range pages {
		for _, task := range p.Tasks {
			if task.Status != "failed" {
				t.Fatalf("status filter: %s is %s", task.ID, task.Status)
			}
		}
	}

	// task://list and project://…/status keep the newest 1,000 and say so.
	text, _ := f.read("task://list")
	var list struct {
		Count   int `json:"count"`
		Tasks   []struct{ ID string }
		Omitted int    `json:"omitted"`
		Hint    string `json:"hint"`
	}
	if err := json.Unmarshal([]byte(text), &list); err != nil {
		t.Fatal(err)
	}
	total := len(f.listed(""))
	if list.Count != total || len(list.Tasks) != 1000 || list.Omitted != total-1000 || !strings.Contains(list.Hint, "list_tasks") {
		t.Errorf("task://list: count %d (want %d), %d tasks, omitted %d, hint %q", list.Count, total, len(list.Tasks), list.Omitted, list.Hint)
	}
	if last := list.Tasks[len(list.Tasks)-1].ID; !strings.HasPrefix(last, "after") {
		t.Errorf("task://list does not end with the newest task: %s", last)
	}
	text, _ = f.read("project://" + url.PathEscape(f.repo) + "/status")
	var proj struct {
		Tasks   []struct{ ID string }
		Omitted int `json:"omitted_tasks"`
	}
	if err := json.Unmarshal([]byte(text), &proj); err != nil || len(proj.Tasks) != 1000 || proj.Omitted != total-1000 {
		t.Errorf("project status: %d tasks, omitted %d, %v", len(proj.Tasks), proj.Omitted, err)
	}
}

// A short list is one page without a cursor, and task://list is unchanged.
func TestListTasksShort(t *testing.T) {
	f := newPagedFixture(t, mcpagent.Options{})
	f.put("t", 3, time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	ids := f.listed("")
	got, pages := f.walk(nil, nil)
	if len(pages) != 1 || !slices.Equal(got, ids) || pages[0].Total != 3 {
		t.Fatalf("list_tasks: %v in %d pages", got, len(pages))
	}
	text, _ := f.read("task://list")
	if strings.Contains(text, "omitted") || strings.Contains(text, "hint") {
		t.Errorf("a short task://list: %s", text)
	}
	got, pages = f.walk(map[string]any{"limit": 1}, nil)
	if len(pages) != 3 || !slices.Equal(got, ids) {
		t.Fatalf("list_tasks in pages of 1: %v in %d pages", got, len(pages))
	}
	r := f.call("list_tasks", map[string]any{"status": "running"})
	if r.Status != "error" || r.Error.Type != "validation_error" {
		t.Errorf("an unknown status: %+v", r)
	}
}

// An invalid cursor or page size is the JSON-RPC error -32602, for
// list_tasks and for the protocol's list methods.
func TestListTasksInvalidCursor(t *testing.T) {
	f := newPagedFixture(t, mcpagent.Options{PageSize: 2})
	f.put("t", 5, time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	var p listPage
	f.mustSucceed("list_tasks", map[string]any{"limit": 2}, &p)
	raw := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	ctx := context.Background()
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"cursor": "garbage!"}, "invalid cursor"},
		{map[string]any{"cursor": p.NextCursor, "status": "failed"}, "other filters"},
		{map[string]any{"cursor": raw(`{"v":1,"l":"issues","k":{}}`)}, "another list"},
		{map[string]any{"cursor": raw(`{"v":1,"l":"tasks","f":"` + fingerprint(t, p.NextCursor) + `","k":{"c":"","id":""}}`)}, "malformed position"},
		{map[string]any{"limit": 0}, "limit"},
		{map[string]any{"limit": 1001}, "limit"},
	} {
		_, err := f.cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_tasks", Arguments: c.args})
		var rpc *jsonrpc.Error
		if !errors.As(err, &rpc) || rpc.Code != jsonrpc.CodeInvalidParams || !strings.Contains(rpc.Message, c.want) {
			t.Errorf("list_tasks(%v): %v, want -32602 with %q", c.args, err, c.want)
		}
	}

	// With a page size of 2, the protocol's lists page and keep every item.
	var tools, resources, templates []string
	for tool, err := range f.cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		tools = append(tools, tool.Name)
	}
	for r, err := range f.cs.Resources(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		resources = append(resources, r.URI)
	}
	for rt, err := range f.cs.ResourceTemplates(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		templates = append(templates, rt.URITemplate)
	}
	if len(tools) != 8 || len(resources) != 3 || len(templates) != 7 {
		t.Errorf("paged lists: tools %v, resources %v, templates %v", tools, resources, templates)
	}
	first, err := f.cs.ListTools(ctx, nil)
	if err != nil || len(first.Tools) != 2 || first.NextCursor == "" {
		t.Fatalf("tools/list with a page size of 2: %+v %v", first, err)
	}
	for method, call := range map[string]func() error{
		"tools/list": func() error { _, err := f.cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: "garbage"}); return err },
		"resources/list": func() error {
			_, err := f.cs.ListResources(ctx, &mcp.ListResourcesParams{Cursor: "garbage"})
			return err
		},
		"resources/templates/list": func() error {
			_, err := f.cs.ListResourceTemplates(ctx, &mcp.ListResourceTemplatesParams{Cursor: "garbage"})
			return err
		},
	} {
		var rpc *jsonrpc.Error
		if err := call(); !errors.As(err, &rpc) || rpc.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("%s with an invalid cursor: %v, want -32602", method, err)
		}
	}
}

func fingerprint(t *testing.T, c string) string {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		t.Fatal(err)
	}
	var env struct{ F string }
	json.Unmarshal(b, &env)
	return env.F
}
