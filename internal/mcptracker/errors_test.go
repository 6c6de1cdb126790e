package mcptracker_test

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/mcptracker"
)

// validArgs are well-formed arguments of every tool: the required
// parameters, naming ids that do not exist (unknown).
func validArgs() map[string]map[string]any {
	const issue, spec, fb = "sudocode-zzzz", "sudocode-spec-zzzz", "sudocode-fb-zzzz"
	return map[string]map[string]any{
		"ready":                {},
		"list_issues":          {},
		"show_issue":           {"issue_id": issue},
		"create_issue":         {"title": "A task"},
		"update_issue":         {"issue_id": issue, "status": "in_progress"},
		"close_issue":          {"issue_ids": []string{issue}},
		"blocked_issues":       {},
		"list_specs":           {},
		"show_spec":            {"spec_id": spec},
		"create_spec":          {"title": "A spec"},
		"link":                 {"from_id": issue, "to_id": spec},
		"add_feedback":         {"issue_id": issue, "spec_id": spec, "content": "Why?", "line": 1},
		"list_feedback":        {},
		"show_feedback":        {"feedback_id": fb},
		"acknowledge_feedback": {"feedback_id": fb},
		"resolve_feedback":     {"feedback_id": fb},
		"wontfix_feedback":     {"feedback_id": fb},
		"stale_feedback":       {},
		"relocate_feedback":    {"feedback_id": fb, "line": 1},
		"stats":                {},
		"status":               {},
		"init":                 {},
		"search":               {"query": "login"},
		"update_spec":          {"spec_id": spec, "title": "New"},
		"unlink":               {"from_id": issue, "to_id": spec},
		"create_issues":        {"issues": []map[string]any{{"title": "One"}}},
		"update_issues":        {"updates": []map[string]any{{"issue_id": issue, "priority": 1}}},
		"add_comment":          {"issue_id": issue, "body": "A note"},
	}
}

// Before init, every tool but init says there is no .sudocode and to run
// init; so do the prompts. Nothing is created by trying.
func TestBeforeInit(t *testing.T) {
	f := connect(t, mcptracker.Options{})
	args := validArgs()
	for _, tool := range f.tools() {
		a, ok := args[tool.Name]
		if !ok {
			t.Errorf("no arguments for %s: add it to validArgs", tool.Name)
			continue
		}
		if tool.Name == "init" {
			continue
		}
		e := f.fails(tool.Name, a, "not_found")
		if !strings.Contains(e.Message, "no .sudocode found in "+f.dir) || !strings.Contains(e.Hint, "init") {
			t.Errorf("%s before init: %q (hint %q), want no .sudocode in %s and a hint to run init", tool.Name, e.Message, e.Hint, f.dir)
		}
	}
	for _, p := range []struct {
		name string
		args map[string]string
	}{{"start_next_task", nil}, {"review_spec", map[string]string{"spec_id": "sudocode-spec-zzzz"}}} {
		_, err := f.cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: p.name, Arguments: p.args})
		if err == nil || !strings.Contains(err.Error(), "no .sudocode") || !strings.Contains(err.Error(), "init") {
			t.Errorf("prompt %s before init: %v, want an error saying to run init", p.name, err)
		}
	}
	if entries, _ := filepath.Glob(f.dir + "/*"); len(entries) != 0 {
		t.Errorf("failed calls created %v", entries)
	}

	// init then makes them work, in the server's directory.
	res := f.ok("init", nil)
	res.eq(true, "success")
	res.eq(f.dir+"/.sudocode", "path")
	res.eq("sudocode", "prefix")
	f.ok("list_issues", nil).eq(0, "total")
}

// Unknown ids are not_found tool errors whose hint names the list tool
// that finds the right id.
func TestUnknownIDs(t *testing.T) {
	f := initialised(t, mcptracker.Options{})
	issue := f.ok("create_issue", map[string]any{"title": "Real issue"}).str("id")
	spec := f.ok("create_spec", map[string]any{"title": "Real spec", "design": "# Spec\n\nBody line\n"}).str("id")
	fb := f.ok("add_feedback", map[string]any{"issue_id": issue, "spec_id": spec, "content": "Hm", "line": 3}).str("id")
	const noIssue, noSpec, noFB = "sudocode-zzzz", "sudocode-spec-zzzz", "sudocode-fb-zzzz"

	for _, c := range []struct {
		tool string
		args map[string]any
		hint string // a list tool the hint must name
	}{
		{"show_issue", map[string]any{"issue_id": noIssue}, "list_issues"},
		{"update_issue", map[string]any{"issue_id": noIssue, "status": "closed"}, "list_issues"},
		{"update_issues", map[string]any{"updates": []map[string]any{{"issue_id": issue, "priority": 0}, {"issue_id": noIssue, "priority": 0}}}, "list_issues"},
		{"create_issue", map[string]any{"title": "Child", "parent": noIssue}, "list"},
		{"create_issues", map[string]any{"issues": []map[string]any{{"title": "Ok"}, {"title": "Child", "parent": noIssue}}}, "list"},
		{"show_spec", map[string]any{"spec_id": noSpec}, "list_specs"},
		{"update_spec", map[string]any{"spec_id": noSpec, "status": "approved"}, "list_specs"},
		{"create_spec", map[string]any{"title": "Child", "parent": noSpec}, "list"},
		{"link", map[string]any{"from_id": noIssue, "to_id": spec}, "list_issues"},
		{"link", map[string]any{"from_id": issue, "to_id": noSpec, "type": "implements"}, "list_specs"},
		{"unlink", map[string]any{"from_id": noIssue, "to_id": spec}, "list_issues"},
		{"add_feedback", map[string]any{"issue_id": noIssue, "spec_id": spec, "content": "x", "line": 1}, "list_issues"},
		{"add_feedback", map[string]any{"issue_id": issue, "spec_id": noSpec, "content": "x", "line": 1}, "list_specs"},
		{"show_feedback", map[string]any{"feedback_id": noFB}, "list_feedback"},
		{"acknowledge_feedback", map[string]any{"feedback_id": noFB}, "list_feedback"},
		{"resolve_feedback", map[string]any{"feedback_id": noFB, "comment": "done"}, "list_feedback"},
		{"wontfix_feedback", map[string]any{"feedback_id": noFB, "reason": "no"}, "list_feedback"},
		{"relocate_feedback", map[string]any{"feedback_id": noFB, "line": 1}, "list_feedback"},
	} {
		e := f.fails(c.tool, c.args, "not_found")
		if !strings.Contains(e.Message, "zzzz") || !strings.Contains(e.Hint, c.hint) {
			t.Errorf("%s(%v): %q (hint %q), want the id named and a hint naming %s", c.tool, c.args, e.Message, e.Hint, c.hint)
		}
	}
	// A failed batch changes nothing: the first update was not applied.
	f.ok("show_issue", map[string]any{"issue_id": issue}).eq(2, "priority")
	f.ok("list_issues", nil).eq(1, "total")

	// close_issue reports per id: the unknown one fails alone.
	res := f.ok("close_issue", map[string]any{"issue_ids": []string{noIssue, issue}})
	res.eq(noIssue, 0, "id")
	res.eq(false, 0, "success")
	if msg := res.str(0, "error"); !strings.Contains(msg, noIssue) || !strings.Contains(msg, "not found") {
		t.Errorf("close_issue of an unknown id: error %q", msg)
	}
	res.eq(map[string]any{"id": issue, "success": true, "error": nil}, 1)

	// Other refusals are tool errors too, with their own codes.
	f.fails("link", map[string]any{"from_id": issue, "to_id": issue, "type": "blocks"}, "invalid_argument")
	f.fails("add_feedback", map[string]any{"issue_id": issue, "spec_id": spec, "content": "x", "line": 99}, "invalid_argument")
	f.fails("add_feedback", map[string]any{"issue_id": issue, "spec_id": spec, "content": "x"}, "invalid_argument")
	f.fails("add_feedback", map[string]any{"issue_id": issue, "spec_id": spec, "content": "x", "line": 1, "text": "Body"}, "invalid_argument")
	f.fails("create_issue", map[string]any{"title": "x", "type": "story"}, "invalid_argument")
	f.fails("create_issue", map[string]any{"title": "x", "priority": 5}, "invalid_argument")
	f.fails("list_issues", map[string]any{"status": "done"}, "invalid_argument")
	f.fails("init", map[string]any{"prefix": "other"}, "conflict")
	f.fails("unlink", map[string]any{"from_id": issue, "to_id": spec, "type": "blocks"}, "not_found")
	f.ok("show_feedback", map[string]any{"feedback_id": fb})
}

// expectedParams checks an unknown parameter's error: it names the
// parameter, then every parameter the tool takes (its input schema's).
func expectedParams(t *testing.T, tool, msg, bogus string, want []string) {
	t.Helper()
	rest, ok := strings.CutPrefix(msg, "unknown parameter '"+bogus+"'; expected: ")
	if len(want) == 0 {
		ok, rest = msg == "unknown parameter '"+bogus+"': this tool takes no parameters", ""
	}
	got := slices.Sorted(slices.Values(strings.Split(rest, ", ")))
	if !ok || (len(want) > 0 && !slices.Equal(got, want)) {
		t.Errorf("%s: %q does not name the expected parameters %v", tool, msg, want)
	}
}

// Missing required parameters, unknown parameters and wrong types are
// JSON-RPC invalid-params errors naming the parameter, for every tool.
func TestInvalidParams(t *testing.T) {
	f := initialised(t, mcptracker.Options{})
	args := validArgs()
	wrong := map[string]any{"string": 42, "integer": "three", "boolean": "yes", "array": "a,b"}
	for _, tool := range f.tools() {
		valid := args[tool.Name]
		with := func(k string, v any) map[string]any {
			a := maps.Clone(valid)
			if a == nil {
				a = map[string]any{}
			}
			a[k] = v
			return a
		}
		props, _ := tool.InputSchema.(map[string]any)["properties"].(map[string]any)
		expectedParams(t, tool.Name, f.rpcErr(tool.Name, with("bogus", 1)), "bogus", slices.Sorted(maps.Keys(props)))
		required, _ := tool.InputSchema.(map[string]any)["required"].([]any)
		for _, req := range required {
			name := req.(string)
			a := maps.Clone(valid)
			delete(a, name)
			f.rpcError(tool.Name, a, "missing required parameter '"+name+"'")
			// An explicit null or an empty value is missing too.
			f.rpcError(tool.Name, with(name, nil), "missing required parameter '"+name+"'")
		}
		for _, name := range slices.Sorted(maps.Keys(props)) {
			typ := schemaType(props[name])
			bad, ok := wrong[typ]
			if !ok {
				t.Fatalf("%s.%s: no wrong value for type %q", tool.Name, name, typ)
			}
			f.rpcError(tool.Name, with(name, bad), "invalid parameter '"+name+"'")
		}
	}
	// Not a JSON object at all, and bad items of a batch.
	f.rpcError("create_issues", map[string]any{"issues": []any{}}, "missing required parameter 'issues'")
	f.rpcError("create_issues", map[string]any{"issues": []any{map[string]any{"title": "a", "bogus": 1}}}, "unknown parameter 'bogus'")
	f.rpcError("create_issues", map[string]any{"issues": []any{map[string]any{"priority": 1}}}, "missing required parameter 'issues[0].title'")
	f.rpcError("update_issues", map[string]any{"updates": []any{map[string]any{"status": "closed"}}}, "missing required parameter 'updates[0].issue_id'")
	f.rpcError("close_issue", map[string]any{"issue_ids": []any{}}, "missing required parameter 'issue_ids'")
	f.rpcError("close_issue", map[string]any{"issue_ids": []any{1}}, "invalid parameter 'issue_ids'")
	tooMany := make([]map[string]any, 201)
	for i := range tooMany {
		tooMany[i] = map[string]any{"title": fmt.Sprint("t", i)}
	}
	f.rpcError("create_issues", map[string]any{"issues": tooMany}, "at most 200 items")
	_, err := f.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "no_such_tool", Arguments: map[string]any{}})
	checkRPC(t, err, "")
	f.ok("list_issues", nil).eq(0, "total") // nothing was created by a refused call
}

// schemaType is a property's type, without the "null" of an optional one.
func schemaType(p any) string {
	switch typ := p.(map[string]any)["type"].(type) {
	case string:
		return typ
	case []any:
		for _, x := range typ {
			if x != "null" {
				return x.(string)
			}
		}
	}
	return ""
}

// A required parameter is never declared nullable: a model reading the
// schema must not think null is a valid value.
func TestRequiredNotNullable(t *testing.T) {
	f := connect(t, mcptracker.Options{})
	for _, tool := range f.tools() {
		s := tool.InputSchema.(map[string]any)
		props, _ := s["properties"].(map[string]any)
		req, _ := s["required"].([]any)
		for _, r := range req {
			if _, list := props[r.(string)].(map[string]any)["type"].([]any); list {
				t.Errorf("%s: required parameter %s has type %v", tool.Name, r, props[r.(string)].(map[string]any)["type"])
			}
		}
	}
}
