package mcprulesets_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/mcprulesets"
	"github.com/sudocode/sudocode/internal/mcpx"
	"github.com/sudocode/sudocode/internal/rulesets"
)

// ruleset-history://{name}: each change with its author (the caller in
// the request's context, else the library's actor), deletes included.
func TestHistoryResource(t *testing.T) {
	forEachStore(t, func(t *testing.T, f *fixture) {
		f.clock.Set("2025-10-29 10:30:00")
		createPython(f)
		f.clock.Set("2025-10-29 11:00:00")
		f.ok("upsert_ruleset", map[string]any{"name": "python_style_guide", "tags": []string{"py"}}, "Successfully upserted ruleset 'python_style_guide'")
		f.clock.Set("2025-10-29 12:00:00")
		f.ok("delete_ruleset", map[string]any{"name": "python_style_guide"}, "Successfully deleted ruleset 'python_style_guide'")

		res, err := f.read("ruleset-history://python_style_guide")
		if err != nil {
			t.Fatal(err)
		}
		c := res.Contents[0]
		want := `{"name":"python_style_guide","changes":[` +
			`{"time":"2025-10-29T12:00:00Z","by":"tester","action":"deleted","fields":[],"version":3},` +
			`{"time":"2025-10-29T11:00:00Z","by":"tester","action":"updated","fields":["tags"],"version":2},` +
			`{"time":"2025-10-29T10:30:00Z","by":"tester","action":"created","fields":["description","markdown","tags"],"version":1}]}`
		if c.MIMEType != "application/json" || c.URI != "ruleset-history://python_style_guide" || c.Text != want {
			t.Fatalf("history = %s %s\n%s\nwant\n%s", c.URI, c.MIMEType, c.Text, want)
		}
		_, err = f.read("ruleset-history://nonexistent")
		checkRPCError(t, err, -32603, "failed to retrieve ruleset history: ruleset 'nonexistent' not found. Existing rulesets: []")
		_, err = f.read("ruleset-history://Bad-Name")
		checkRPCError(t, err, -32602, "failed to retrieve ruleset history: invalid ruleset name 'Bad-Name': must use snake_case (lowercase letters, numbers, and underscores only)")
	})
}

// The caller a transport puts in the context wins over the library's actor.
func TestHistoryRecordsTheCaller(t *testing.T) {
	ctx := context.Background()
	store := stores[0].open(t)
	server := mcprulesets.NewWithOptions(rulesets.Library{Store: store, Actor: "local"}, mcprulesets.Options{})
	server.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			return next(mcpx.WithCaller(ctx, "alice"), method, req)
		}
	})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait(); store.Close() })
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "upsert_ruleset",
		Arguments: map[string]any{"name": "x", "description": "d", "markdown": "m"}}); err != nil || res.IsError {
		t.Fatalf("upsert: %v %+v", err, res)
	}
	if err := (rulesets.Library{Store: store, Actor: "local"}).Delete(ctx, "x"); err != nil {
		t.Fatal(err)
	}
	h, err := store.History(ctx, "x", 10)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal([]string{h[0].By, h[1].By})
	if string(b) != `["local","alice"]` {
		t.Fatalf("authors %s, want local (the CLI's delete), then alice (the MCP caller)", b)
	}
}
