package cli_test

// The tracker's MCP tools and the sudocode commands are the same
// operations: every tool is run in-process and as the command it maps to,
// in the same project, and the two results compared as JSON.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/mcptracker"
)

// cliForm is how a tool is run as a command: the command, and for each
// tool parameter where it goes: "--flag", a positional argument "$1" or
// "$2", "$@" for the rest of the arguments (a list, or the words of a
// string), or "-" for JSON on standard input. A boolean goes as its flag
// when its value (or the tool's default for it) is true.
type cliForm struct {
	cmd    []string
	params map[string]string
}

var toolCLI = map[string]cliForm{
	"ready": {[]string{"ready"}, map[string]string{"limit": "--limit", "priority": "--priority", "assignee": "--assignee",
		"show_specs": "--specs", "show_issues": "--issues", "cursor": "--cursor"}},
	"list_issues": {[]string{"issue", "list", "--all"}, map[string]string{"status": "--status", "type": "--type", "priority": "--priority",
		"assignee": "--assignee", "limit": "--limit", "cursor": "--cursor"}},
	"show_issue": {[]string{"issue", "show"}, map[string]string{"issue_id": "$1"}},
	"create_issue": {[]string{"issue", "create"}, map[string]string{"title": "$1", "description": "--description", "type": "--type",
		"priority": "--priority", "assignee": "--assignee", "parent": "--parent", "tags": "--tags", "estimate": "--estimate"}},
	"update_issue": {[]string{"issue", "update"}, map[string]string{"issue_id": "$1", "status": "--status", "priority": "--priority",
		"assignee": "--assignee", "type": "--type", "title": "--title", "description": "--description"}},
	"close_issue": {[]string{"issue", "close"}, map[string]string{"issue_ids": "$@", "reason": "--reason"}},
	"blocked_issues": {[]string{"blocked"}, map[string]string{"show_specs": "--specs", "show_issues": "--issues", "limit": "--limit",
		"cursor": "--cursor"}},
	"list_specs": {[]string{"spec", "list"}, map[string]string{"status": "--status", "type": "--type", "priority": "--priority",
		"limit": "--limit", "cursor": "--cursor"}},
	"show_spec": {[]string{"spec", "show"}, map[string]string{"spec_id": "$1"}},
	"create_spec": {[]string{"spec", "create"}, map[string]string{"title": "$1", "type": "--type", "priority": "--priority",
		"description": "--description", "design": "--design", "file_path": "--file-path", "parent": "--parent", "tags": "--tags"}},
	"link": {[]string{"link"}, map[string]string{"from_id": "$1", "to_id": "$2", "type": "--type"}},
	"add_feedback": {[]string{"feedback", "add"}, map[string]string{"issue_id": "$1", "spec_id": "$2", "content": "--content",
		"type": "--type", "line": "--line", "text": "--text", "agent": "--agent"}},
	"list_feedback": {[]string{"feedback", "list"}, map[string]string{"issue_id": "--issue", "spec_id": "--spec", "type": "--type",
		"status": "--status", "limit": "--limit", "cursor": "--cursor"}},
	"show_feedback":        {[]string{"feedback", "show"}, map[string]string{"feedback_id": "$1"}},
	"acknowledge_feedback": {[]string{"feedback", "acknowledge"}, map[string]string{"feedback_id": "$1"}},
	"resolve_feedback":     {[]string{"feedback", "resolve"}, map[string]string{"feedback_id": "$1", "comment": "--comment"}},
	"wontfix_feedback":     {[]string{"feedback", "wont-fix"}, map[string]string{"feedback_id": "$1", "reason": "--reason"}},
	"stale_feedback":       {[]string{"feedback", "stale"}, map[string]string{"limit": "--limit", "cursor": "--cursor"}},
	"relocate_feedback":    {[]string{"feedback", "relocate"}, map[string]string{"feedback_id": "$1", "line": "--line"}},
	"stats":                {[]string{"stats"}, map[string]string{}},
	"status":               {[]string{"status"}, map[string]string{"verbose": "--verbose"}},
	"init":                 {[]string{"init"}, map[string]string{"prefix": "--prefix"}},
	"search": {[]string{"search"}, map[string]string{"query": "$@", "show_issues": "--issues", "show_specs": "--specs",
		"limit": "--limit", "cursor": "--cursor"}},
	"update_spec": {[]string{"spec", "update"}, map[string]string{"spec_id": "$1", "title": "--title", "status": "--status",
		"type": "--type", "priority": "--priority", "description": "--description", "content": "--content", "tags": "--tags"}},
	"unlink":        {[]string{"unlink"}, map[string]string{"from_id": "$1", "to_id": "$2", "type": "--type"}},
	"create_issues": {[]string{"issue", "create-batch"}, map[string]string{"issues": "-"}},
	"update_issues": {[]string{"issue", "update-batch"}, map[string]string{"updates": "-"}},
	"add_comment":   {[]string{"issue", "comment"}, map[string]string{"issue_id": "$1", "body": "$2"}},
}

// trackerSession serves the tracker in-process on dir, acting as alice
// (the actor the projects' commands run as), and returns a client session.
func trackerSession(t *testing.T, dir string) *mcp.ClientSession {
	t.Helper()
	server := mcptracker.New(mcptracker.Options{Dir: dir, Actor: "alice", Version: "test"})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "equivalence", Version: "0"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait() })
	return cs
}

// listTools returns tools/list by name.
func listTools(t *testing.T, cs *mcp.ClientSession) map[string]*mcp.Tool {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*mcp.Tool{}
	for _, tool := range res.Tools {
		out[tool.Name] = tool
	}
	return out
}

// schemaProps returns a tool's input properties.
func schemaProps(tool *mcp.Tool) map[string]any {
	props, _ := tool.InputSchema.(map[string]any)["properties"].(map[string]any)
	return props
}

// cliArgs turns a tool's arguments into the command line and standard
// input of the command it maps to.
func cliArgs(t *testing.T, tool *mcp.Tool, args map[string]any) (argv []string, stdin string) {
	t.Helper()
	form, ok := toolCLI[tool.Name]
	if !ok {
		t.Fatalf("no CLI form for %s", tool.Name)
	}
	argv = slices.Clone(form.cmd)
	var pos [3][]string // $1, $2, $@
	props := schemaProps(tool)
	for _, name := range slices.Sorted(maps.Keys(props)) {
		to := form.params[name]
		v, given := args[name]
		if to == "" {
			if given {
				t.Fatalf("%s: parameter %s has no CLI form", tool.Name, name)
			}
			continue
		}
		if _, isBool := v.(bool); isBool || schemaType(props[name]) == "boolean" {
			if !given {
				v, _ = props[name].(map[string]any)["default"].(bool)
			}
			if v == true {
				argv = append(argv, to)
			}
			continue
		}
		if !given {
			continue
		}
		switch to {
		case "$1":
			pos[0] = []string{fmt.Sprint(v)}
		case "$2":
			pos[1] = []string{fmt.Sprint(v)}
		case "$@":
			switch l := v.(type) {
			case string:
				pos[2] = strings.Fields(l)
			default:
				pos[2] = strs(t, v)
			}
		case "-":
			b, _ := json.Marshal(v)
			stdin = string(b)
		default:
			if l, isList := v.([]string); isList {
				argv = append(argv, to+"="+strings.Join(l, ","))
			} else {
				argv = append(argv, fmt.Sprintf("%s=%v", to, v))
			}
		}
	}
	argv = append(argv, "--json")
	if len(pos[0])+len(pos[1])+len(pos[2]) > 0 {
		argv = append(argv, "--")
		for _, p := range pos {
			argv = append(argv, p...)
		}
	}
	return argv, stdin
}

func strs(t *testing.T, v any) []string {
	t.Helper()
	switch l := v.(type) {
	case []string:
		return l
	case []any:
		out := make([]string, len(l))
		for i, x := range l {
			out[i] = fmt.Sprint(x)
		}
		return out
	}
	t.Fatalf("%v is not a list", v)
	return nil
}

// schemaType is a property's type without the "null" of an optional one.
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

// Every input property of every tool maps to a flag or an argument of
// its command, and those exist. A new tool parameter fails here until it
// is mapped (and, if the command lacks it, added to the command).
func TestMCPToolsMapToCLI(t *testing.T) {
	p := newBareProj(t)
	tools := listTools(t, trackerSession(t, p.root))
	for _, name := range slices.Sorted(maps.Keys(toolCLI)) {
		if tools[name] == nil {
			t.Errorf("toolCLI maps %s, which the server does not have", name)
		}
	}
	usage := regexp.MustCompile(`(?m)^Usage:\n  (.*)$`)
	for _, name := range slices.Sorted(maps.Keys(tools)) {
		tool := tools[name]
		form, ok := toolCLI[name]
		if !ok {
			t.Errorf("tool %s has no CLI form in toolCLI", name)
			continue
		}
		props := schemaProps(tool)
		for prop := range props {
			if _, ok := form.params[prop]; !ok {
				t.Errorf("%s: parameter %s is not mapped to a flag or argument of `sudocode %s`", name, prop, strings.Join(form.cmd, " "))
			}
		}
		help := p.ok(append(slices.Clone(form.cmd), "--help")...)
		m := usage.FindStringSubmatch(help)
		if m == nil {
			t.Fatalf("sudocode %s --help: no usage line:\n%s", strings.Join(form.cmd, " "), help)
		}
		words := strings.Fields(strings.TrimPrefix(m[1], "sudocode "+strings.Join(form.cmd, " ")))
		var positional []string
		for _, w := range words {
			if w == strings.ToUpper(w) && !strings.HasPrefix(w, "-") && w != "[FLAGS]" {
				positional = append(positional, w)
			}
		}
		for param, to := range form.params {
			if _, ok := props[param]; !ok {
				t.Errorf("%s: toolCLI maps %s, which the tool does not have", name, param)
			}
			switch to {
			case "$1", "$2":
				if n := int(to[1] - '0'); len(positional) < n || strings.HasSuffix(positional[n-1], "...") {
					t.Errorf("%s.%s → %s, but the usage is %q", name, param, to, m[1])
				}
			case "$@":
				if len(positional) == 0 || !strings.HasSuffix(positional[len(positional)-1], "...") {
					t.Errorf("%s.%s → %s, but the usage is %q", name, param, to, m[1])
				}
			case "-":
				if !strings.Contains(help, "standard input") {
					t.Errorf("%s.%s → stdin, but the command does not read standard input:\n%s", name, param, help)
				}
			default:
				if !regexp.MustCompile(`(?m)^\s+(-\w, )?` + regexp.QuoteMeta(to) + `\b`).MatchString(help) {
					t.Errorf("%s.%s → %s, which `sudocode %s` does not have", name, param, to, strings.Join(form.cmd, " "))
				}
			}
		}
	}
}

// equiv runs tools in-process and as commands in one project.
type equiv struct {
	t     *testing.T
	p     *proj
	cs    *mcp.ClientSession
	tools map[string]*mcp.Tool
	// names of the twin items: an item created through MCP and its twin
	// created the same way through the CLI, by placeholder.
	mcpID, cliID map[string]string
	called       map[string]bool
}

// outcome is one side's result: its JSON (the result, or the error body
// {"error": …}) and whether it succeeded.
type outcome struct {
	raw json.RawMessage
	ok  bool
}

func (o outcome) String() string { return string(o.raw) }

var idToken = regexp.MustCompile(`\bsudocode-(?:spec-|fb-)?[0-9a-z]+\b`)

// resolve replaces "@NAME" placeholders in args by the ids of one side.
func resolve(v any, ids map[string]string) any {
	switch x := v.(type) {
	case string:
		if strings.HasPrefix(x, "@") {
			if id, ok := ids[x[1:]]; ok {
				return id
			}
			panic("no item named " + x)
		}
		return x
	case []string:
		out := make([]string, len(x))
		for i, s := range x {
			out[i] = resolve(s, ids).(string)
		}
		return out
	case []map[string]any:
		out := make([]map[string]any, len(x))
		for i, m := range x {
			out[i] = resolve(m, ids).(map[string]any)
		}
		return out
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			out[k] = resolve(e, ids)
		}
		return out
	}
	return v
}

// viaMCP calls a tool in-process and checks its structured content.
func (e *equiv) viaMCP(tool string, args map[string]any) outcome {
	e.t.Helper()
	e.called[tool] = true
	res, err := e.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		e.t.Fatalf("%s(%v): %v", tool, args, err)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	structured, _ := json.Marshal(res.StructuredContent)
	if res.IsError {
		return outcome{structured, false}
	}
	want := text
	if !strings.HasPrefix(text, "{") {
		want = `{"results":` + text + `}`
	}
	if !jsonEqual(structured, []byte(want)) {
		e.t.Errorf("%s: structured content %s, want %s", tool, structured, want)
	}
	return outcome{json.RawMessage(text), true}
}

// viaCLI runs the command the tool maps to.
func (e *equiv) viaCLI(tool string, args map[string]any) outcome {
	e.t.Helper()
	argv, stdin := cliArgs(e.t, e.tools[tool], args)
	r := runAt(e.t, e.p.root, e.p.env, stdin, argv...)
	out := strings.TrimSpace(r.stdout)
	if r.code != 0 && out == "" {
		if !json.Valid([]byte(r.stderr)) {
			e.t.Fatalf("sudocode %s: exit %d, stderr not JSON: %q", strings.Join(argv, " "), r.code, r.stderr)
		}
		return outcome{compact(e.t, r.stderr), false}
	}
	if !json.Valid([]byte(out)) {
		e.t.Fatalf("sudocode %s: exit %d, not JSON: %q (stderr %q)", strings.Join(argv, " "), r.code, r.stdout, r.stderr)
	}
	return outcome{compact(e.t, out), r.code == 0}
}

func compact(t *testing.T, s string) json.RawMessage {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		t.Fatalf("not JSON: %q", s)
	}
	return b.Bytes()
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}

// same runs a tool and its command with the same arguments on the same
// state: the results must be the same bytes (as compact JSON).
func (e *equiv) same(tool string, args map[string]any) outcome {
	e.t.Helper()
	args = resolve(args, e.mcpID).(map[string]any)
	m := e.viaMCP(tool, args)
	c := e.viaCLI(tool, args)
	// A result must be the same bytes; an error body, which the client
	// decodes as a map, the same JSON.
	if m.ok != c.ok || (m.ok && !bytes.Equal(m.raw, c.raw)) || !jsonEqual(m.raw, c.raw) {
		e.t.Errorf("%s(%v):\n MCP %v %s\n CLI %v %s", tool, args, m.ok, m.raw, c.ok, c.raw)
	}
	return m
}

// twin runs a change through MCP on the MCP side's items and through the
// CLI on their twins: the results must be equal once ids are named and
// uuids and times masked. A result that creates items names them name,
// or name0, name1… for a list.
func (e *equiv) twin(tool string, args map[string]any, name string) (m, c outcome) {
	e.t.Helper()
	m = e.viaMCP(tool, resolve(args, e.mcpID).(map[string]any))
	c = e.viaCLI(tool, resolve(args, e.cliID).(map[string]any))
	if name != "" && m.ok && c.ok {
		mIDs, cIDs := newIDs(e.t, m.raw), newIDs(e.t, c.raw)
		for i := range mIDs {
			n := name
			if len(mIDs) > 1 || m.raw[0] == '[' {
				n = fmt.Sprint(name, i)
			}
			e.mcpID[n], e.cliID[n] = mIDs[i], cIDs[i]
		}
	}
	mm, cm := e.mask(m.raw, e.mcpID), e.mask(c.raw, e.cliID)
	if m.ok != c.ok && !partialClose(tool, m, c) || !jsonEqual(mm, cm) {
		e.t.Errorf("%s(%v), masked:\n MCP %v %s\n CLI %v %s", tool, args, m.ok, mm, c.ok, cm)
	}
	return m, c
}

// walk compares a list and its command page by page, following
// next_cursor until it is null, and returns the number of pages.
func (e *equiv) walk(tool string, args map[string]any) int {
	e.t.Helper()
	for pages := 1; ; pages++ {
		m := e.same(tool, args)
		var v struct {
			NextCursor *string `json:"next_cursor"`
		}
		if err := json.Unmarshal(m.raw, &v); err != nil || !m.ok {
			e.t.Fatalf("%s(%v): %s", tool, args, m.raw)
		}
		if v.NextCursor == nil {
			return pages
		}
		if pages > 100 {
			e.t.Fatalf("%s(%v): no end after %d pages", tool, args, pages)
		}
		args = maps.Clone(args)
		args["cursor"] = *v.NextCursor
	}
}

// partialClose is close_issue with an unknown id: the tool succeeds with
// the per-id results, the command prints them and exits non-zero.
func partialClose(tool string, m, c outcome) bool {
	return tool == "close_issue" && m.ok && !c.ok && bytes.Contains(m.raw, []byte(`"success":false`))
}

// newIDs returns the id of a result object, or of each object of a list.
func newIDs(t *testing.T, raw json.RawMessage) []string {
	var one struct{ ID string }
	if json.Unmarshal(raw, &one) == nil && one.ID != "" {
		return []string{one.ID}
	}
	var many []struct{ ID string }
	if err := json.Unmarshal(raw, &many); err != nil {
		t.Fatalf("no ids in %s", raw)
	}
	var out []string
	for _, x := range many {
		out = append(out, x.ID)
	}
	return out
}

// maskedKeys differ between twins whatever they hold.
var maskedKeys = map[string]bool{"uuid": true, "created_at": true, "updated_at": true, "closed_at": true, "last_verified_at": true}

// mask names the ids (and other bound values) of one side's items and
// masks uuids and times.
func (e *equiv) mask(raw json.RawMessage, ids map[string]string) []byte {
	names := map[string]string{}
	for n, id := range ids {
		names[id] = "@" + n
	}
	var walk func(v any) any
	walk = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if maskedKeys[k] && e != nil {
					x[k] = "<masked>"
				} else {
					x[k] = walk(e)
				}
			}
		case []any:
			for i, e := range x {
				x[i] = walk(e)
			}
		case string:
			if n, ok := names[x]; ok {
				return n
			}
			return idToken.ReplaceAllStringFunc(x, func(id string) string {
				if n, ok := names[id]; ok {
					return n
				}
				return id
			})
		}
		return v
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		e.t.Fatalf("not JSON: %s", raw)
	}
	b, _ := json.Marshal(walk(v))
	return b
}

// Every tool gives what its command gives with --json, results and errors.
func TestMCPToolsMatchCLI(t *testing.T) {
	t.Setenv("USER", "tester") // the default feedback agent, as in the commands' environment
	p := newProj(t)
	cs := trackerSession(t, p.root)
	e := &equiv{t: t, p: p, cs: cs, tools: listTools(t, cs), mcpID: map[string]string{}, cliID: map[string]string{}, called: map[string]bool{}}

	// init: again in the same project, and a conflicting prefix.
	e.same("init", map[string]any{})
	e.same("init", map[string]any{"prefix": "sudocode"})
	e.same("init", map[string]any{"prefix": "other"})

	// Specs.
	design := "# Login\n\n## Tokens\n\nAccess tokens last 15 minutes.\nRefresh tokens rotate.\n"
	e.twin("create_spec", map[string]any{"title": "Auth"}, "AUTH")
	e.twin("create_spec", map[string]any{"title": "Login flow", "type": "api", "priority": 1, "description": "How users log in",
		"design": design, "parent": "@AUTH", "tags": []string{"web", "auth"}}, "LOGIN")
	e.mcpID["MPATH"], e.cliID["MPATH"] = "docs/sessions-m.md", "docs/sessions-c.md"
	m, c := e.twin("create_spec", map[string]any{"title": "Sessions", "file_path": "@MPATH", "design": "# Sessions\n"}, "SESSIONS")
	if !strings.Contains(string(m.raw), `"file_path":"docs/sessions-m.md"`) || !strings.Contains(string(c.raw), `"file_path":"docs/sessions-c.md"`) {
		t.Errorf("file_path not kept: %s %s", m, c)
	}
	e.same("list_specs", map[string]any{})
	e.same("list_specs", map[string]any{"status": "draft", "type": "api", "priority": 1, "limit": 1})
	e.same("list_specs", map[string]any{"limit": 2})
	e.same("show_spec", map[string]any{"spec_id": "@LOGIN"})
	e.same("show_spec", map[string]any{"spec_id": "sudocode-spec-zzzz"})

	// Issues.
	e.twin("create_issue", map[string]any{"title": "Login epic", "type": "epic", "priority": 1}, "EPIC")
	e.twin("create_issue", map[string]any{"title": "Build the login form", "description": "Email and password", "type": "feature",
		"priority": 0, "assignee": "bob", "parent": "@EPIC", "tags": []string{"web", "ui"}, "estimate": 90}, "FORM")
	e.twin("create_issue", map[string]any{"title": "Token bug", "type": "bug", "priority": 3}, "BUG")
	e.twin("create_issue", map[string]any{"title": "Plain"}, "PLAIN")
	e.twin("create_issue", map[string]any{"title": "Orphan", "parent": "sudocode-zzzz"}, "")
	e.twin("update_issue", map[string]any{"issue_id": "@BUG", "status": "in_progress", "priority": 1, "assignee": "carol", "type": "chore",
		"title": "Token chore", "description": "Rotate keys"}, "")
	e.twin("update_issue", map[string]any{"issue_id": "@PLAIN", "priority": 9}, "")
	e.twin("link", map[string]any{"from_id": "@FORM", "to_id": "@BUG", "type": "blocks"}, "")
	e.twin("link", map[string]any{"from_id": "@FORM", "to_id": "@LOGIN", "type": "implements"}, "")
	e.twin("link", map[string]any{"from_id": "@PLAIN", "to_id": "@EPIC"}, "")
	e.twin("link", map[string]any{"from_id": "@BUG", "to_id": "@FORM", "type": "blocks"}, "") // a cycle
	e.same("update_issue", map[string]any{"issue_id": "sudocode-zzzz", "status": "closed"})
	for _, args := range []map[string]any{
		{}, {"limit": 2}, {"priority": 1}, {"assignee": "carol"}, {"show_specs": true}, {"show_specs": true, "show_issues": false},
		{"limit": 1, "priority": 2, "assignee": "", "show_specs": true, "show_issues": true},
	} {
		e.same("ready", args)
	}
	for _, args := range []map[string]any{
		{}, {"limit": 3}, {"status": "open", "type": "feature", "priority": 0, "assignee": "bob", "limit": 5}, {"status": "in_progress"},
	} {
		e.same("list_issues", args)
	}
	e.same("list_issues", map[string]any{"status": "done"})
	e.same("show_issue", map[string]any{"issue_id": "@FORM"})
	e.same("show_issue", map[string]any{"issue_id": "@EPIC"})
	e.same("show_issue", map[string]any{"issue_id": "sudocode-zzzz"})
	e.twin("add_comment", map[string]any{"issue_id": "@FORM", "body": "Halfway: the **form** renders.\n\n- next: errors"}, "COMMENT")
	e.twin("add_comment", map[string]any{"issue_id": "sudocode-zzzz", "body": "Lost"}, "")
	e.twin("add_comment", map[string]any{"issue_id": "@FORM", "body": " \n "}, "")
	e.same("show_issue", map[string]any{"issue_id": "@FORM"}) // its comment, and the history of the changes above
	e.same("show_issue", map[string]any{"issue_id": "@BUG"})
	e.same("blocked_issues", map[string]any{})
	e.same("blocked_issues", map[string]any{"show_specs": true})
	e.same("blocked_issues", map[string]any{"show_specs": true, "show_issues": false})

	// Feedback.
	e.twin("add_feedback", map[string]any{"issue_id": "@FORM", "spec_id": "@LOGIN", "content": "Why 15 minutes?", "type": "question",
		"text": "Access tokens", "agent": "claude"}, "FBQ")
	e.twin("add_feedback", map[string]any{"issue_id": "@FORM", "spec_id": "@LOGIN", "content": "How often?", "line": 6}, "FBL")
	e.twin("add_feedback", map[string]any{"issue_id": "@FORM", "spec_id": "@LOGIN", "content": "Where?", "line": 60}, "")
	e.same("list_feedback", map[string]any{})
	e.same("list_feedback", map[string]any{"issue_id": "@FORM", "spec_id": "@LOGIN", "type": "question", "status": "open", "limit": 10})
	e.same("list_feedback", map[string]any{"limit": 1})
	e.same("show_feedback", map[string]any{"feedback_id": "@FBQ"})
	e.same("show_feedback", map[string]any{"feedback_id": "sudocode-fb-zzzz"})
	e.twin("acknowledge_feedback", map[string]any{"feedback_id": "@FBQ"}, "")
	e.twin("resolve_feedback", map[string]any{"feedback_id": "@FBQ", "comment": "15 minutes is the policy"}, "")
	e.twin("wontfix_feedback", map[string]any{"feedback_id": "@FBL", "reason": "out of scope"}, "")
	e.twin("resolve_feedback", map[string]any{"feedback_id": "@FBL"}, "")
	e.same("acknowledge_feedback", map[string]any{"feedback_id": "sudocode-fb-zzzz"})
	newDesign := "# Login\n\n## Tokens\n\nAccess tokens last 15 minutes.\n\n## Sessions\n\nOne per device.\n"
	e.twin("update_spec", map[string]any{"spec_id": "@LOGIN", "title": "Login", "status": "review", "type": "feature", "priority": 2,
		"description": "Logging in", "content": newDesign, "tags": []string{"auth"}}, "")
	e.twin("update_spec", map[string]any{"spec_id": "@AUTH", "status": "approved"}, "")
	e.same("stale_feedback", map[string]any{})
	e.same("show_feedback", map[string]any{"feedback_id": "@FBL"})
	e.same("show_spec", map[string]any{"spec_id": "@LOGIN"})
	e.twin("relocate_feedback", map[string]any{"feedback_id": "@FBL", "line": 9}, "")
	e.twin("relocate_feedback", map[string]any{"feedback_id": "@FBL", "line": 90}, "")
	e.same("stale_feedback", map[string]any{})

	// Search.
	for _, args := range []map[string]any{
		{"query": "token"}, {"query": "login form", "show_issues": true, "show_specs": false, "limit": 3},
		{"query": "login", "show_specs": true, "show_issues": false}, {"query": "login", "limit": 2}, {"query": "nothing-matches"},
	} {
		e.same("search", args)
	}

	// Unlink, batches, close.
	e.twin("unlink", map[string]any{"from_id": "@FORM", "to_id": "@BUG", "type": "blocks"}, "")
	e.twin("unlink", map[string]any{"from_id": "@PLAIN", "to_id": "@EPIC"}, "")
	e.twin("unlink", map[string]any{"from_id": "@PLAIN", "to_id": "@EPIC"}, "") // gone already
	e.twin("create_issues", map[string]any{"issues": []map[string]any{
		{"title": "Write tests", "priority": 4},
		{"title": "Style the form", "description": "CSS", "type": "feature", "priority": 2, "assignee": "dave", "parent": "@EPIC",
			"tags": []string{"ui"}, "estimate": 30},
	}}, "BATCH")
	e.twin("create_issues", map[string]any{"issues": []map[string]any{{"title": "Fine"}, {"title": "Bad", "type": "story"}}}, "")
	e.twin("update_issues", map[string]any{"updates": []map[string]any{
		{"issue_id": "@BATCH0", "status": "blocked", "title": "Write more tests"},
		{"issue_id": "@BATCH1", "assignee": "erin", "priority": 0, "type": "task", "description": "CSS and HTML"},
	}}, "")
	e.twin("update_issues", map[string]any{"updates": []map[string]any{{"issue_id": "@BATCH0", "priority": 1}, {"issue_id": "sudocode-zzzz", "priority": 1}}}, "")
	e.twin("close_issue", map[string]any{"issue_ids": []string{"@BUG", "@BATCH0"}, "reason": "Shipped"}, "")
	e.twin("close_issue", map[string]any{"issue_ids": []string{"@PLAIN"}}, "")
	// An unknown id fails alone: the tool reports it in its result, the
	// command too, and exits non-zero.
	m, c = e.twin("close_issue", map[string]any{"issue_ids": []string{"sudocode-zzzz", "@BATCH1"}}, "")
	if !partialClose("close_issue", m, c) {
		t.Errorf("close_issue with an unknown id: MCP %v %s, CLI %v %s", m.ok, m, c.ok, c)
	}
	e.same("ready", map[string]any{"show_specs": true})
	e.same("blocked_issues", map[string]any{})
	e.same("list_issues", map[string]any{"status": "closed"})
	e.same("stats", map[string]any{})
	e.same("status", map[string]any{})
	e.same("status", map[string]any{"verbose": true})

	// Every list, page by page: the cursors and pages are the same.
	for _, c := range []struct {
		tool  string
		args  map[string]any
		pages int // at least
	}{
		{"list_issues", map[string]any{"limit": 1}, 5},
		{"list_issues", map[string]any{"status": "open", "limit": 2}, 2},
		{"list_specs", map[string]any{"limit": 1}, 3},
		{"list_feedback", map[string]any{"limit": 1}, 3},
		{"stale_feedback", map[string]any{"limit": 1}, 1},
		{"ready", map[string]any{"limit": 1, "show_specs": true}, 2},
		{"blocked_issues", map[string]any{"limit": 1, "show_specs": true}, 1},
		{"search", map[string]any{"query": "login", "limit": 1}, 2},
	} {
		if pages := e.walk(c.tool, c.args); pages < c.pages {
			t.Errorf("%s(%v): %d pages, want at least %d", c.tool, c.args, pages, c.pages)
		}
	}

	for name := range e.tools {
		if !e.called[name] {
			t.Errorf("%s was not compared with its command", name)
		}
	}
}

// close_issue's text is the command's array, its structured content the
// array wrapped as {"results": …}.
func TestCloseIssueResultIsAnArray(t *testing.T) {
	p := newProj(t)
	cs := trackerSession(t, p.root)
	id := p.js("issue", "create", "One").str("id")
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "close_issue", Arguments: map[string]any{"issue_ids": []string{id}}})
	if err != nil || res.IsError {
		t.Fatalf("close_issue: %v %+v", err, res)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	want := `[{"id":"` + id + `","success":true,"error":null}]`
	if text != want {
		t.Errorf("close_issue text = %s, want %s", text, want)
	}
	structured, _ := json.Marshal(res.StructuredContent)
	if !jsonEqual(structured, []byte(`{"results":`+want+`}`)) {
		t.Errorf("close_issue structured content = %s, want {\"results\": %s}", structured, want)
	}
	if out := p.js("issue", "close", id); string(compact(t, string(out.raw))) != want {
		t.Errorf("issue close --json = %s, want %s", out.raw, want)
	}
	r := p.run("issue", "close", "sudocode-zzzz", "--json")
	if r.code != 3 || !strings.Contains(r.stdout, `"success": false`) {
		t.Errorf("issue close of an unknown id: exit %d, stdout %q", r.code, r.stdout)
	}
}

// init through MCP and through the CLI in twin projects gives the same
// result (but the path) and the same files.
func TestMCPInitMatchesCLI(t *testing.T) {
	for _, prefix := range []string{"", "proj"} {
		a, b := newBareProj(t), newBareProj(t)
		args, cli := map[string]any{}, []string{"init", "--json"}
		if prefix != "" {
			args["prefix"] = prefix
			cli = append(cli, "--prefix", prefix)
		}
		res, err := trackerSession(t, a.root).CallTool(context.Background(), &mcp.CallToolParams{Name: "init", Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("init: %v %+v", err, res)
		}
		m := strings.ReplaceAll(res.Content[0].(*mcp.TextContent).Text, a.root, "ROOT")
		c := strings.ReplaceAll(string(compact(t, b.ok(cli...))), b.root, "ROOT")
		if m != c {
			t.Errorf("init %v:\n MCP %s\n CLI %s", args, m, c)
		}
		sa, sb := a.snapshot(), b.snapshot()
		if len(sa) == 0 {
			t.Fatalf("init through MCP wrote nothing in %s", a.root)
		}
		sameFiles(t, "init through MCP and the CLI", sa, sb)
	}
}
