package tracker_test

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	mcptracker "github.com/sudocode/sudocode/internal/mcpserver/tracker"
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
