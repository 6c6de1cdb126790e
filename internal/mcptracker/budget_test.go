package mcptracker_test

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/mcptracker"
)

// With a small budget, the lists cut themselves to fit, say so, say how
// many were left out and how to narrow the query; their JSON stays under
// the budget.
func TestBudget(t *testing.T) {
	for _, budget := range []int{1500, 2200} {
		t.Run(fmt.Sprint(budget), func(t *testing.T) { checkBudget(t, budget) })
	}
}

func checkBudget(t *testing.T, budget int) {
	f := initialised(t, mcptracker.Options{Budget: budget})
	long := strings.Repeat("lorem ipsum ", 20)
	var issues []map[string]any
	for i := range 40 {
		issues = append(issues, map[string]any{"title": fmt.Sprintf("Issue number %d about tokens", i), "description": long})
	}
	ids := f.ok("create_issues", map[string]any{"issues": issues}).ids()
	spec := f.ok("create_spec", map[string]any{"title": "Tokens", "design": "# Tokens\n\nline\n"}).str("id")
	for i := range 12 {
		f.ok("create_spec", map[string]any{"title": fmt.Sprintf("Spec %d about tokens", i), "description": long})
		f.ok("add_feedback", map[string]any{"issue_id": ids[i], "spec_id": spec, "content": long, "line": 3})
	}

	leftOut := regexp.MustCompile(`showing (\d+) of (\d+)\b.*?(\d+) left out`)
	for _, c := range []struct {
		tool    string
		args    map[string]any
		list    string
		total   int
		narrow  string
		defSize int // how many the default limit would return
	}{
		{"list_issues", nil, "issues", 40, "status, type, priority or assignee", 40},
		{"list_specs", nil, "specs", 13, "status, type or priority", 13},
		{"list_feedback", nil, "feedback", 12, "issue_id, spec_id, type or status", 12},
		{"search", map[string]any{"query": "tokens"}, "results", 53, "more words", 50},
	} {
		res := f.call(c.tool, c.args)
		text := res.Content[0].(*mcp.TextContent).Text
		if res.IsError {
			t.Fatalf("%s: %s", c.tool, text)
		}
		v := parse(t, text)
		n := len(v.list(c.list))
		if len(text) > budget {
			t.Errorf("%s: %d bytes of JSON, over the budget of %d", c.tool, len(text), budget)
		}
		if n == 0 || n >= c.defSize {
			t.Errorf("%s: %d items with a budget of %d, want fewer than %d but some", c.tool, n, budget, c.defSize)
			continue
		}
		v.eq(true, "truncated")
		v.eq(c.total, "total")
		hint := v.str("hint")
		m := leftOut.FindStringSubmatch(hint)
		if m == nil || m[1] != strconv.Itoa(n) || m[2] != strconv.Itoa(c.total) || m[3] != strconv.Itoa(c.total-n) {
			t.Errorf("%s: hint %q, want it to say showing %d of %d, %d left out", c.tool, hint, n, c.total, c.total-n)
		}
		if !strings.Contains(hint, "narrow with "+c.narrow) {
			t.Errorf("%s: hint %q does not say to narrow with %s", c.tool, hint, c.narrow)
		}
	}
}

// With the default budget, a full page of 50 compact items fits whole.
func TestDefaultBudgetFitsAPage(t *testing.T) {
	f := initialised(t, mcptracker.Options{})
	var issues []map[string]any
	for i := range 60 {
		issues = append(issues, map[string]any{"title": fmt.Sprintf("Issue %d", i), "description": strings.Repeat("word ", 40)})
	}
	f.ok("create_issues", map[string]any{"issues": issues})
	res := f.ok("list_issues", nil)
	if n := len(res.list("issues")); n != 50 {
		t.Errorf("list_issues: %d items, want the default limit 50", n)
	}
	res.eq(60, "total")
	res.eq(true, "truncated")
}

// A limit above what fits the budget returns the same cut whatever it is:
// the lists read no more than the budget could hold (a limit of 100,000
// reads a few dozen items here), and that changes nothing they return.
func TestLimitAboveTheBudgetSameCut(t *testing.T) {
	const budget = 1500
	f := initialised(t, mcptracker.Options{Budget: budget})
	long := strings.Repeat("lorem ipsum ", 20)
	var issues []map[string]any
	for i := range 40 {
		issues = append(issues, map[string]any{"title": fmt.Sprintf("Issue number %d", i), "description": long, "priority": i % 5})
	}
	f.ok("create_issues", map[string]any{"issues": issues})
	for i := range 30 {
		f.ok("create_spec", map[string]any{"title": fmt.Sprintf("Spec %d", i), "description": long})
	}
	for _, c := range []struct{ tool, list string }{{"list_issues", "issues"}, {"list_specs", "specs"}} {
		text := func(args map[string]any) string {
			res := f.call(c.tool, args)
			text := res.Content[0].(*mcp.TextContent).Text
			if res.IsError {
				t.Fatalf("%s(%v): %s", c.tool, args, text)
			}
			return text
		}
		var first string
		var kept int
		for _, limit := range []int{18, 19, 20, 25, 1000, 100000} { // 20 and below read all they ask for
			got := text(map[string]any{"limit": limit})
			if first == "" {
				first, kept = got, len(parse(t, got).list(c.list))
				if kept == 0 || kept >= 18 {
					t.Fatalf("%s: %d items fit %d bytes; the test wants a cut", c.tool, kept, budget)
				}
				continue
			}
			if got != first {
				t.Errorf("%s with limit %d:\n%s\nwant what limit 18 returns:\n%s", c.tool, limit, got, first)
			}
		}
		// The cut keeps all that fit: one more item (read from a server on
		// the same tracker with room for everything) would not, give or
		// take the few bytes by which the hint and cursor of a longer cut
		// differ.
		var all []json.RawMessage
		wide := connect(t, mcptracker.Options{Dir: f.dir, Budget: 1 << 20})
		wideRes := wide.call(c.tool, map[string]any{"limit": 1000}).Content[0].(*mcp.TextContent).Text
		var whole map[string]json.RawMessage
		if err := json.Unmarshal([]byte(wideRes), &whole); err != nil || json.Unmarshal(whole[c.list], &all) != nil || len(all) <= kept {
			t.Fatalf("%s on a wide budget: %.200s", c.tool, wideRes)
		}
		if grown := len(first) + len(all[kept]) + 1; grown <= budget-10 {
			t.Errorf("%s kept %d items in %d bytes; the next one (%d bytes) fits the budget of %d too", c.tool, kept, len(first), len(all[kept]), budget)
		}
		// The cursor continues after the last item kept.
		next := parse(t, first).str("next_cursor")
		rest := parse(t, text(map[string]any{"limit": 100000, "cursor": next}))
		if n := len(rest.list(c.list)); n == 0 {
			t.Errorf("%s: nothing after the cut's cursor", c.tool)
		}
	}
}
