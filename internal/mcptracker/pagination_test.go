package mcptracker_test

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/mcptracker"
	"github.com/sudocode/sudocode/internal/racesize"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

// openStore opens the tracker of f's directory directly, as another
// process would, for fast batch writes.
func openStore(t testing.TB, f *fixture) *store.Repo {
	t.Helper()
	dir, err := store.FindFrom(f.dir)
	if err != nil {
		t.Fatal(err)
	}
	r, err := store.Open(context.Background(), dir, "loader")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// createIssues creates n issues through the store's batch create, with
// priorities 0 to 4 in turn.
func createIssues(t testing.TB, r *store.Repo, prefix string, n int) {
	t.Helper()
	in := make([]store.IssueInput, n)
	for i := range in {
		p := i % 5
		in[i] = store.IssueInput{Title: fmt.Sprintf("%s %d", prefix, i), Description: "paged", Priority: &p}
	}
	if _, err := r.CreateIssues(context.Background(), in); err != nil {
		t.Fatal(err)
	}
}

// page is one page of a walk: the ids of each list in it.
type page map[string][]string

// walk calls tool with args, then again with each next_cursor until it is
// null, and returns every page; between runs after each page but the last.
func (f *fixture) walk(tool string, args map[string]any, lists []string, between func()) []page {
	f.t.Helper()
	var pages []page
	for {
		v := f.ok(tool, args)
		p := page{}
		for _, l := range lists {
			if v.has(l) {
				p[l] = v.ids(l)
			}
		}
		pages = append(pages, p)
		next := v.at("next_cursor").v
		if next == nil {
			return pages
		}
		if len(pages) > 20_000 {
			f.t.Fatalf("%s: no end to the walk after %d pages", tool, len(pages))
		}
		if between != nil {
			between()
		}
		args = maps.Clone(args)
		if args == nil {
			args = map[string]any{}
		}
		args["cursor"] = next.(string)
	}
}

// joined is the ids of list over every page, in order.
func joined(pages []page, list string) []string {
	var out []string
	for _, p := range pages {
		out = append(out, p[list]...)
	}
	return out
}

// checkOnce checks that every id of want is in got exactly once, and that
// got repeats nothing.
func checkOnce(t testing.TB, what string, got, want []string) {
	t.Helper()
	seen := map[string]int{}
	for _, id := range got {
		seen[id]++
	}
	missed, repeated := 0, 0
	for _, id := range want {
		if seen[id] == 0 {
			missed++
		}
	}
	for id, n := range seen {
		if n > 1 {
			repeated++
			if repeated < 5 {
				t.Errorf("%s: %s returned %d times", what, id, n)
			}
		}
	}
	if missed > 0 || repeated > 0 {
		t.Fatalf("%s: %d of %d missed, %d repeated (%d returned)", what, missed, len(want), repeated, len(got))
	}
}

// A walk of 10,000 issues (1,000 under the race detector: still past
// what one response holds) with cursors returns each once, in the list's
// order, while new issues are created between the pages (some of them
// before the position reached, some after); the pages are cut by the
// response budget as well as by the limit.
func TestListIssuesWalkALargeTracker(t *testing.T) {
	f := initialised(t, mcptracker.Options{})
	r := openStore(t, f)
	n := racesize.Of(10_000, 1_000)
	createIssues(t, r, "Issue", n)
	all := f.ok("list_issues", map[string]any{"limit": n}) // the budget cuts it
	if all.num("total") != n || !all.has("next_cursor") {
		t.Fatalf("list_issues: total %d, want %d", all.num("total"), n)
	}
	before := map[string]bool{}
	var wantOrder []string
	{
		// The whole list in one page, from the store: the order to compare with.
		l, err := r.ListIssues(context.Background(), store.IssueFilter{Limit: n})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range l.Issues {
			before[c.ID] = true
			wantOrder = append(wantOrder, c.ID)
		}
	}

	var added atomic.Int64
	pages := f.walk("list_issues", map[string]any{"limit": 400}, []string{"issues"}, func() {
		createIssues(t, r, "Late", 3) // priorities 0, 1, 2: around the position reached
		added.Add(3)
	})
	got := joined(pages, "issues")
	checkOnce(t, "list_issues walk", got, wantOrder)
	// The issues that existed at the start come in the list's order.
	var old []string
	for _, id := range got {
		if before[id] {
			old = append(old, id)
		}
	}
	if !slices.Equal(old, wantOrder) {
		t.Fatalf("list_issues walk: the first issues are not in the list's order")
	}
	if len(pages) < n/400 {
		t.Fatalf("list_issues walk: %d pages of at most 400", len(pages))
	}
	cutByBudget := false
	for _, p := range pages[:len(pages)-1] {
		cutByBudget = cutByBudget || len(p["issues"]) < 400
	}
	if !cutByBudget {
		t.Errorf("no page was cut by the response budget; the walk did not cross that path")
	}
	t.Logf("%d pages, %d issues (%d created during the walk)", len(pages), len(got), added.Load())
}

// Every list tool pages with cursors: the pages, joined, are the list as
// one long page, and the last page's next_cursor is null.
func TestEveryListPages(t *testing.T) {
	f := initialised(t, mcptracker.Options{})
	r := openStore(t, f)
	createIssues(t, r, "Tokens", 60)
	blocker := f.ok("create_issue", map[string]any{"title": "Blocker tokens", "priority": 0}).str("id")
	spec := f.ok("create_spec", map[string]any{"title": "Token spec", "design": "# Tokens\n\none\ntwo\n"}).str("id")
	var blockedSpecs []string
	for i := range 9 {
		s := f.ok("create_spec", map[string]any{"title": fmt.Sprintf("Spec %d tokens", i), "priority": i % 5}).str("id")
		if i%2 == 0 {
			f.ok("link", map[string]any{"from_id": s, "to_id": spec, "type": "blocks"})
			blockedSpecs = append(blockedSpecs, s)
		}
	}
	all := slices.DeleteFunc(f.ok("list_issues", map[string]any{"limit": 1000}).ids("issues"), func(id string) bool { return id == blocker })
	for i, id := range all[1:25] {
		f.ok("link", map[string]any{"from_id": id, "to_id": blocker, "type": "blocks"})
		if i%3 == 0 {
			f.ok("add_feedback", map[string]any{"issue_id": id, "spec_id": spec, "content": "why?", "line": 3})
		}
	}
	f.ok("update_spec", map[string]any{"spec_id": spec, "content": "# Other\n"}) // the anchors go stale

	for _, c := range []struct {
		tool  string
		args  map[string]any
		lists []string
	}{
		{"list_issues", map[string]any{}, []string{"issues"}},
		{"list_issues", map[string]any{"status": "open", "priority": 2}, []string{"issues"}},
		{"list_specs", map[string]any{}, []string{"specs"}},
		{"list_feedback", map[string]any{"spec_id": spec}, []string{"feedback"}},
		{"stale_feedback", map[string]any{}, []string{"feedback"}},
		{"ready", map[string]any{"show_specs": true}, []string{"issues", "specs"}},
		{"ready", map[string]any{"show_specs": true, "show_issues": false}, []string{"specs"}},
		{"blocked_issues", map[string]any{"show_specs": true}, []string{"issues", "specs"}},
		{"search", map[string]any{"query": "tokens"}, []string{"results"}},
	} {
		for _, limit := range []int{1, 3, 7} {
			name := fmt.Sprintf("%s%v/limit %d", c.tool, c.args, limit)
			whole := f.ok(c.tool, with(c.args, "limit", 1000))
			whole.eq(nil, "next_cursor")
			args := with(c.args, "limit", limit)
			pages := f.walk(c.tool, args, c.lists, nil)
			for _, l := range c.lists {
				want := whole.ids(l)
				if got := joined(pages, l); !slices.Equal(got, want) {
					t.Errorf("%s: %s in pages = %v\nwant %v", name, l, got, want)
				}
				for i, p := range pages {
					if len(p[l]) > limit {
						t.Errorf("%s: page %d has %d %s", name, i, len(p[l]), l)
					}
				}
			}
			if longest := slices.MaxFunc(c.lists, func(a, b string) int { return len(whole.list(a)) - len(whole.list(b)) }); len(pages) != max(1, (len(whole.list(longest))+limit-1)/limit) {
				t.Errorf("%s: %d pages for %d items", name, len(pages), len(whole.list(longest)))
			}
		}
	}
	if n := len(f.ok("blocked_issues", map[string]any{"show_specs": true, "limit": 1000}).list("specs")); n != len(blockedSpecs) {
		t.Errorf("blocked specs: %d, want %d", n, len(blockedSpecs))
	}
	// A page that is not the last says how to go on.
	v := f.ok("list_issues", map[string]any{"limit": 5})
	v.eq(true, "truncated")
	if h := v.str("hint"); !strings.Contains(h, "next_cursor") {
		t.Errorf("hint %q does not mention next_cursor", h)
	}
}

func with(m map[string]any, k string, v any) map[string]any {
	out := maps.Clone(m)
	if out == nil {
		out = map[string]any{}
	}
	out[k] = v
	return out
}

// An invalid cursor is a JSON-RPC invalid-params error for every list
// tool: garbage, a cursor of another list, one made for other filters,
// one of another version, one with a malformed position.
func TestInvalidCursor(t *testing.T) {
	f := initialised(t, mcptracker.Options{})
	r := openStore(t, f)
	createIssues(t, r, "Issue", 5)
	spec := f.ok("create_spec", map[string]any{"title": "S", "design": "# S\n\nline\n"}).str("id")
	f.ok("create_spec", map[string]any{"title": "T"})
	issues := f.ok("list_issues", nil).ids("issues")
	f.ok("add_feedback", map[string]any{"issue_id": issues[0], "spec_id": spec, "content": "a", "line": 3})
	f.ok("add_feedback", map[string]any{"issue_id": issues[1], "spec_id": spec, "content": "b", "line": 3})
	issueCursor := f.ok("list_issues", map[string]any{"limit": 1}).str("next_cursor")
	specCursor := f.ok("list_specs", map[string]any{"limit": 1}).str("next_cursor")
	raw := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }

	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"list_issues", nil}, {"list_specs", nil}, {"list_feedback", nil}, {"stale_feedback", nil},
		{"ready", nil}, {"blocked_issues", nil}, {"search", map[string]any{"query": "issue"}},
	} {
		for _, bad := range []struct{ cursor, want string }{
			{"garbage!", "invalid cursor"},
			{"", "invalid cursor"}, // set below: another list's
			{raw(`{"v":9,"l":"issues","k":{}}`), "version"},
			{raw(`{"v":1,"l":"issues","k":{"p":1,"c":2,"id":""}}`), "invalid cursor"},
			{raw(`not json`), "invalid cursor"},
			{strings.Repeat("A", 5000), "invalid cursor"},
		} {
			if bad.cursor == "" {
				bad.cursor = specCursor
				if c.tool == "list_specs" {
					bad.cursor = issueCursor
				}
			}
			f.rpcError(c.tool, with(c.args, "cursor", bad.cursor), bad.want)
		}
	}
	// A cursor made for other filters.
	f.rpcError("list_issues", map[string]any{"status": "open", "cursor": issueCursor}, "other filters")
	f.rpcError("list_issues", map[string]any{"priority": 1, "cursor": issueCursor}, "other filters")
	// The limit may change between pages.
	f.ok("list_issues", map[string]any{"limit": 3, "cursor": issueCursor})
}

// tools/list, resources/list, resources/templates/list and prompts/list
// page with the SDK's cursors when the page size is small, and answer an
// invalid cursor with -32602.
func TestProtocolListsPage(t *testing.T) {
	ctx := context.Background()
	whole := connect(t, mcptracker.Options{})
	paged := connect(t, mcptracker.Options{PageSize: 2})
	wantTools := names(whole.tools(), func(x *mcp.Tool) string { return x.Name })
	var got []string
	var pages int
	for tool, err := range paged.cs.Tools(ctx, nil) { // the client follows nextCursor
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, tool.Name)
	}
	if !slices.Equal(got, wantTools) {
		t.Fatalf("tools/list in pages of 2 = %v, want %v", got, wantTools)
	}
	params := &mcp.ListToolsParams{}
	for {
		res, err := paged.cs.ListTools(ctx, params)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		if len(res.Tools) > 2 {
			t.Fatalf("a page of %d tools", len(res.Tools))
		}
		if res.NextCursor == "" {
			break
		}
		params.Cursor = res.NextCursor
	}
	if pages != (len(wantTools)+1)/2 {
		t.Errorf("%d pages of tools, want %d", pages, (len(wantTools)+1)/2)
	}
	var res, prompts []string
	for r, err := range paged.cs.Resources(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		res = append(res, r.URI)
	}
	for p, err := range paged.cs.Prompts(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		prompts = append(prompts, p.Name)
	}
	if len(res) != 2 || len(prompts) != 2 {
		t.Errorf("resources %v, prompts %v", res, prompts)
	}

	for _, f := range []*fixture{whole, paged} {
		_, err := f.cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: "garbage"})
		checkCode(t, "tools/list", err)
		_, err = f.cs.ListResources(ctx, &mcp.ListResourcesParams{Cursor: "garbage"})
		checkCode(t, "resources/list", err)
		_, err = f.cs.ListResourceTemplates(ctx, &mcp.ListResourceTemplatesParams{Cursor: "garbage"})
		checkCode(t, "resources/templates/list", err)
		_, err = f.cs.ListPrompts(ctx, &mcp.ListPromptsParams{Cursor: "garbage"})
		checkCode(t, "prompts/list", err)
	}
}

func names[T any](xs []T, name func(T) string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = name(x)
	}
	return out
}

// checkCode checks err is a JSON-RPC invalid-params error.
func checkCode(t *testing.T, method string, err error) {
	t.Helper()
	var rpc *jsonrpc.Error
	if !errors.As(err, &rpc) || rpc.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("%s with an invalid cursor: %v, want -32602", method, err)
	}
}
