package mcptracker_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/mcptracker"
)

// ready and blocked_issues keep to the budget as the other lists do: a
// page asked for with a large limit comes back cut, within the budget,
// with next_cursor; walking the cursors lists every item once.
func TestBudgetCutsReadyAndBlocked(t *testing.T) {
	const budget = 1500
	f := initialised(t, mcptracker.Options{Budget: budget})
	long := strings.Repeat("lorem ipsum ", 20)
	var issues []map[string]any
	for i := range 30 {
		issues = append(issues, map[string]any{"title": fmt.Sprintf("Issue number %d about a long subject", i), "description": long})
	}
	ready := f.ok("create_issues", map[string]any{"issues": issues}).ids()
	blocker := f.ok("create_issue", map[string]any{"title": "The blocker " + strings.Repeat("x", 60)}).str("id")
	var blocked []string
	for i := range 20 {
		id := f.ok("create_issue", map[string]any{"title": fmt.Sprintf("Blocked number %d, waiting", i), "description": long}).str("id")
		f.ok("link", map[string]any{"from_id": id, "to_id": blocker, "type": "blocks"})
		blocked = append(blocked, id)
	}
	ready = append(ready, blocker)

	for _, c := range []struct {
		tool string
		want []string
	}{{"ready", ready}, {"blocked_issues", blocked}} {
		var got []string
		var cursor any
		pages := 0
		for {
			args := map[string]any{"limit": 100}
			if cursor != nil {
				args["cursor"] = cursor
			}
			res := f.call(c.tool, args)
			text := res.Content[0].(*mcp.TextContent).Text
			if res.IsError {
				t.Fatalf("%s: %s", c.tool, text)
			}
			if len(text) > budget {
				t.Fatalf("%s: %d bytes of JSON, over the budget of %d", c.tool, len(text), budget)
			}
			pages++
			v := parse(t, text)
			for _, it := range v.list("issues") {
				got = append(got, it.str("id"))
			}
			if !v.has("next_cursor") || v.at("next_cursor").v == nil {
				break
			}
			cursor = v.str("next_cursor")
		}
		if pages < 2 {
			t.Errorf("%s: one page of %d items within a budget of %d bytes", c.tool, len(got), budget)
		}
		slices.Sort(got)
		want := slices.Sorted(slices.Values(c.want))
		if !slices.Equal(got, want) {
			t.Errorf("%s over %d pages listed %d items, want each of %d once:\n got %v\nwant %v", c.tool, pages, len(got), len(want), got, want)
		}
	}
}
