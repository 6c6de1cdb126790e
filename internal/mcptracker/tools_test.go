package mcptracker_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/mcptracker"
)

// recorder is a fixture that remembers which tools were called.
type recorder struct {
	*fixture
	called map[string]bool
}

func (r recorder) ok(name string, args map[string]any) val {
	r.t.Helper()
	r.called[name] = true
	return r.fixture.ok(name, args)
}

// Every tool, with every one of its parameters given explicitly at least
// once, does what it says.
func TestEveryTool(t *testing.T) {
	f := recorder{connect(t, mcptracker.Options{Actor: "planner"}), map[string]bool{}}

	f.ok("init", map[string]any{"prefix": "sudocode"}).eq(map[string]any{"success": true, "path": filepath.Join(f.dir, ".sudocode"), "prefix": "sudocode"})
	f.ok("init", map[string]any{"prefix": "sudocode"}).eq(true, "success") // again: nothing changes

	// Specs.
	design := "# Login\n\n## Tokens\n\nAccess tokens last 15 minutes.\nRefresh tokens rotate.\n"
	parentSpec := f.ok("create_spec", map[string]any{"title": "Auth"}).str("id")
	spec := f.ok("create_spec", map[string]any{"title": "Login flow", "type": "api", "priority": 1, "description": "How users log in",
		"design": design, "file_path": "specs/login.md", "parent": parentSpec, "tags": []string{"web", "auth"}})
	specID := spec.str("id")
	if !strings.HasPrefix(specID, "sudocode-spec-") {
		t.Errorf("spec id %q, want the prefix sudocode-spec-", specID)
	}
	for k, want := range map[string]any{"title": "Login flow", "type": "api", "status": "draft", "priority": 1, "description": "How users log in",
		"file_path": "specs/login.md", "parent_id": parentSpec, "tags": []string{"auth", "web"}, "created_by": "planner"} {
		spec.eq(want, k)
	}
	if b, err := os.ReadFile(filepath.Join(f.dir, ".sudocode", "specs", "login.md")); err != nil || string(b) != design {
		t.Errorf("the spec's markdown file: %q %v", b, err)
	}
	shown := f.ok("show_spec", map[string]any{"spec_id": specID})
	shown.eq(design, "content")
	shown.eq(parentSpec, "relationships", "incoming", 0, "from")
	shown.eq("parent-child", "relationships", "incoming", 0, "type")
	shown.eq([]any{}, "feedback")
	f.ok("list_specs", nil).eq(2, "total")
	specs := f.ok("list_specs", map[string]any{"status": "draft", "type": "api", "priority": 1, "limit": 1})
	if ids := specs.ids("specs"); !slices.Equal(ids, []string{specID}) {
		t.Errorf("list_specs with filters: %v", ids)
	}

	// Issues.
	epic := f.ok("create_issue", map[string]any{"title": "Login epic", "type": "epic", "priority": 1}).str("id")
	iss := f.ok("create_issue", map[string]any{"title": "Build the login form", "description": "Email and password", "type": "feature",
		"priority": 0, "assignee": "bob", "parent": epic, "tags": []string{"web", "ui"}, "estimate": 90})
	issue := iss.str("id")
	for k, want := range map[string]any{"title": "Build the login form", "description": "Email and password", "status": "open", "type": "feature",
		"priority": 0, "assignee": "bob", "estimate": 90, "parent_id": epic, "tags": []string{"ui", "web"}, "closed_at": nil,
		"close_reason": nil, "created_by": "planner"} {
		iss.eq(want, k)
	}
	bug := f.ok("create_issue", map[string]any{"title": "Token bug", "type": "bug", "priority": 3}).str("id")
	listed := f.ok("list_issues", map[string]any{"status": "open", "type": "feature", "priority": 0, "assignee": "bob", "limit": 5})
	if ids := listed.ids("issues"); !slices.Equal(ids, []string{issue}) {
		t.Errorf("list_issues with filters: %v", ids)
	}
	listed.eq(1, "total")
	upd := f.ok("update_issue", map[string]any{"issue_id": bug, "status": "in_progress", "priority": 1, "assignee": "carol", "type": "chore",
		"title": "Token chore", "description": "Rotate keys"})
	for k, want := range map[string]any{"status": "in_progress", "priority": 1, "assignee": "carol", "type": "chore", "title": "Token chore", "description": "Rotate keys"} {
		upd.eq(want, k)
	}

	// Links: the issue waits for the bug, and implements the spec.
	f.ok("link", map[string]any{"from_id": issue, "to_id": bug, "type": "blocks"}).eq(map[string]any{"from": issue, "to": bug, "type": "blocks", "success": true})
	f.ok("link", map[string]any{"from_id": issue, "to_id": specID, "type": "implements"})
	det := f.ok("show_issue", map[string]any{"issue_id": issue})
	det.eq([]map[string]any{{"id": bug, "title": "Token chore", "status": "in_progress", "type": "chore", "via": nil}}, "blocked_by")
	det.eq(epic, "relationships", "incoming", 0, "from")
	if n := len(det.list("relationships", "outgoing")); n != 2 {
		t.Errorf("show_issue: %d outgoing links, want 2: %s", n, det)
	}
	ready := f.ok("ready", map[string]any{"limit": 5, "priority": 1, "show_specs": true, "show_issues": true})
	if ids := ready.ids("issues"); !slices.Equal(ids, []string{epic}) {
		t.Errorf("ready at priority 1: %v, want only the epic", ids)
	}
	if ids := ready.ids("specs"); !slices.Equal(ids, []string{specID}) {
		t.Errorf("ready specs at priority 1: %v", ids)
	}
	f.ok("ready", map[string]any{"assignee": "bob"}).eq([]any{}, "issues") // bob's issue is blocked
	blocked := f.ok("blocked_issues", map[string]any{"show_specs": true, "show_issues": true})
	blocked.eq([]any{}, "specs")
	if ids := blocked.ids("issues"); !slices.Equal(ids, []string{issue}) {
		t.Errorf("blocked_issues: %v", ids)
	}
	blocked.eq(bug, "issues", 0, "blocked_by", 0, "id")

	// Feedback, anchored by text and by line.
	fb1 := f.ok("add_feedback", map[string]any{"issue_id": issue, "spec_id": specID, "content": "Why 15 minutes?", "type": "question",
		"text": "Access tokens", "agent": "claude"})
	for k, want := range map[string]any{"issue_id": issue, "spec_id": specID, "type": "question", "status": "open", "content": "Why 15 minutes?", "agent": "claude", "resolution": nil} {
		fb1.eq(want, k)
	}
	fb1.eq(5, "anchor", "line_number")
	fb1.eq("Tokens", "anchor", "section_heading")
	fb1.eq("valid", "anchor", "anchor_status")
	fb2 := f.ok("add_feedback", map[string]any{"issue_id": issue, "spec_id": specID, "content": "How often?", "type": "missing_requirement", "line": 6}).str("id")
	fbs := f.ok("list_feedback", map[string]any{"issue_id": issue, "spec_id": specID, "type": "question", "status": "open", "limit": 10})
	if ids := fbs.ids("feedback"); !slices.Equal(ids, []string{fb1.str("id")}) {
		t.Errorf("list_feedback with filters: %v", ids)
	}
	sf := f.ok("show_feedback", map[string]any{"feedback_id": fb1.str("id")})
	sf.eq(map[string]any{"line_number": 5, "line_text": "Access tokens last 15 minutes.", "section_heading": "Tokens"}, "location")
	f.ok("acknowledge_feedback", map[string]any{"feedback_id": fb1.str("id")}).eq("acknowledged", "status")
	res := f.ok("resolve_feedback", map[string]any{"feedback_id": fb1.str("id"), "comment": "15 minutes is the policy"})
	res.eq("resolved", "status")
	res.eq("15 minutes is the policy", "resolution")
	wf := f.ok("wontfix_feedback", map[string]any{"feedback_id": fb2, "reason": "out of scope"})
	wf.eq("wont_fix", "status")
	wf.eq("out of scope", "resolution")

	// Editing the spec's content loses the second anchor's line.
	newDesign := "# Login\n\n## Tokens\n\nAccess tokens last 15 minutes.\n\n## Sessions\n\nOne per device.\n"
	us := f.ok("update_spec", map[string]any{"spec_id": specID, "title": "Login", "status": "review", "type": "feature", "priority": 2,
		"description": "Logging in", "content": newDesign, "tags": []string{"auth"}})
	for k, want := range map[string]any{"title": "Login", "status": "review", "type": "feature", "priority": 2, "description": "Logging in", "tags": []string{"auth"}} {
		us.eq(want, k)
	}
	f.ok("show_spec", map[string]any{"spec_id": specID}).eq(newDesign, "content")
	stale := f.ok("stale_feedback", nil)
	if ids := stale.ids("feedback"); !slices.Equal(ids, []string{fb2}) {
		t.Errorf("stale_feedback: %v, want %s", ids, fb2)
	}
	rel := f.ok("relocate_feedback", map[string]any{"feedback_id": fb2, "line": 9})
	rel.eq("relocated", "anchor", "anchor_status")
	rel.eq(9, "anchor", "line_number")
	rel.eq("Sessions", "anchor", "section_heading")
	rel.eq(map[string]any{"line_number": 6, "section_heading": "Tokens"}, "anchor", "original_location")
	f.ok("stale_feedback", nil).eq(0, "total")

	// Search, unlink, batches, close.
	found := f.ok("search", map[string]any{"query": "token", "show_issues": true, "show_specs": false, "limit": 5})
	if ids := found.ids("results"); !slices.Equal(ids, []string{bug}) {
		t.Errorf("search issues for token: %v", ids)
	}
	found.eq("issue", "results", 0, "kind")
	f.ok("unlink", map[string]any{"from_id": issue, "to_id": bug, "type": "blocks"}).eq(map[string]any{"from": issue, "to": bug, "type": "blocks", "success": true})
	f.ok("show_issue", map[string]any{"issue_id": issue}).eq([]any{}, "blocked_by")
	created := f.ok("create_issues", map[string]any{"issues": []map[string]any{
		{"title": "Write tests", "priority": 4},
		{"title": "Style the form", "description": "CSS", "type": "feature", "priority": 2, "assignee": "dave", "parent": epic, "tags": []string{"ui"}, "estimate": 30},
	}})
	batch := created.ids()
	created.eq(epic, 1, "parent_id")
	created.eq(30, 1, "estimate")
	updated := f.ok("update_issues", map[string]any{"updates": []map[string]any{
		{"issue_id": batch[0], "status": "blocked", "title": "Write more tests"},
		{"issue_id": batch[1], "assignee": "erin", "priority": 0, "type": "task", "description": "CSS and HTML"},
	}})
	updated.eq("blocked", 0, "status")
	updated.eq("Write more tests", 0, "title")
	updated.eq("erin", 1, "assignee")
	updated.eq(0, 1, "priority")
	closed := f.ok("close_issue", map[string]any{"issue_ids": []string{bug, batch[0]}, "reason": "Shipped"})
	closed.eq([]map[string]any{{"id": bug, "success": true, "error": nil}, {"id": batch[0], "success": true, "error": nil}})
	// Comments, and the history the changes above left.
	com := f.ok("add_comment", map[string]any{"issue_id": bug, "body": "Shipped in **v2**."})
	com.eq(bug, "issue_id")
	com.eq("Shipped in **v2**.", "body")
	cb := f.ok("show_issue", map[string]any{"issue_id": bug})
	cb.eq(com.str("id"), "comments", 0, "id")
	cb.eq("Shipped in **v2**.", "comments", 0, "body")
	last := len(cb.list("history")) - 1
	cb.eq("status", "history", last, "field")
	cb.eq("closed", "history", last, "to")
	cb.eq("closed", "status")
	cb.eq("Shipped", "close_reason")
	// An issue discussed at length: the latest comments only, and how
	// many earlier ones were left out.
	for i := range 21 {
		f.ok("add_comment", map[string]any{"issue_id": bug, "body": fmt.Sprintf("note %d", i)})
	}
	long := f.ok("show_issue", map[string]any{"issue_id": bug})
	if n := len(long.list("comments")); n != 20 {
		t.Errorf("show_issue gave %d of 22 comments, want the latest 20", n)
	}
	long.eq(2, "earlier_comments")
	long.eq("note 20", "comments", 19, "body")
	long.eq("note 1", "comments", 0, "body")
	if cb.str("closed_at") == "" {
		t.Error("closed_at not set")
	}

	// Counts.
	st := f.ok("stats", nil)
	st.eq(2, "specs", "total")
	st.eq(5, "issues", "total")
	st.eq(map[string]any{"open": 3, "in_progress": 0, "blocked": 0, "closed": 2}, "issues", "by_status")
	st.eq(4, "relationships", "total") // three parent-child, one implements
	st.eq(map[string]any{"blocks": 0, "implements": 1, "references": 0, "depends-on": 0, "parent-child": 3, "discovered-from": 0, "related": 0}, "relationships", "by_type")
	status := f.ok("status", map[string]any{"verbose": true})
	status.eq(5, "issues", "total")
	if !status.at("issues").has("ready_ids") || !status.at("issues").has("blocked_ids") {
		t.Errorf("status verbose: no ready_ids or blocked_ids: %s", status)
	}

	var all []string
	for _, tool := range f.tools() {
		all = append(all, tool.Name)
		if !f.called[tool.Name] {
			t.Errorf("%s was not called", tool.Name)
		}
	}
	if len(all) != len(seedTools)+len(extraTools) {
		t.Errorf("tools: %v", all)
	}
}

// The requirement's defaults (docs/servers.md#tracker-tools) apply when a parameter is left out.
func TestDefaults(t *testing.T) {
	t.Setenv("USER", "default-agent")
	f := connect(t, mcptracker.Options{})
	f.ok("init", nil).eq("sudocode", "prefix")
	if b, err := os.ReadFile(filepath.Join(f.dir, ".sudocode", "config.json")); err != nil || !strings.Contains(string(b), `"prefix": "sudocode"`) {
		t.Errorf("config.json: %s %v", b, err)
	}

	iss := f.ok("create_issue", map[string]any{"title": "Plain"})
	id := iss.str("id")
	if !strings.HasPrefix(id, "sudocode-") || strings.HasPrefix(id, "sudocode-spec-") {
		t.Errorf("issue id %q", id)
	}
	for k, want := range map[string]any{"description": "", "status": "open", "type": "task", "priority": 2, "assignee": nil, "estimate": nil,
		"parent_id": nil, "tags": []any{}, "closed_at": nil, "close_reason": nil, "created_by": "agent-1"} {
		iss.eq(want, k)
	}
	sp := f.ok("create_spec", map[string]any{"title": "Plain spec"})
	for k, want := range map[string]any{"description": nil, "type": "feature", "status": "draft", "priority": 2, "file_path": "specs/" + sp.str("id") + ".md",
		"parent_id": nil, "tags": []any{}} {
		sp.eq(want, k)
	}
	f.ok("show_spec", map[string]any{"spec_id": sp.str("id")}).eq("", "content")
	other := f.ok("create_issue", map[string]any{"title": "Other"}).str("id")
	f.ok("link", map[string]any{"from_id": id, "to_id": other}).eq("references", "type")
	f.ok("unlink", map[string]any{"from_id": id, "to_id": other}).eq("references", "type")
	f.ok("update_spec", map[string]any{"spec_id": sp.str("id"), "content": "# Plain\n\nText\n"})
	fb := f.ok("add_feedback", map[string]any{"issue_id": id, "spec_id": sp.str("id"), "content": "Unclear", "text": "Text"})
	fb.eq("ambiguity", "type")
	fb.eq("default-agent", "agent")
	fb.eq(3, "anchor", "line_number")
	f.ok("close_issue", map[string]any{"issue_ids": []string{other}})
	f.ok("show_issue", map[string]any{"issue_id": other}).eq("Completed", "close_reason")

	// ready: 10 issues by default, issues only.
	var many []map[string]any
	for i := range 58 {
		many = append(many, map[string]any{"title": fmt.Sprintf("Task %02d", i), "priority": i % 5})
	}
	f.ok("create_issues", map[string]any{"issues": many})
	ready := f.ok("ready", nil)
	if n := len(ready.list("issues")); n != 10 {
		t.Errorf("ready: %d issues, want the default 10", n)
	}
	if ready.has("specs") {
		t.Errorf("ready without show_specs lists specs: %s", ready)
	}
	prev := -1
	for _, it := range ready.list("issues") {
		if p := it.num("priority"); p < prev {
			t.Errorf("ready is not in priority order: %s", ready)
		} else {
			prev = p
		}
	}
	withSpecs := f.ok("ready", map[string]any{"show_specs": true})
	if !withSpecs.has("issues") || len(withSpecs.list("specs")) != 1 {
		t.Errorf("ready with show_specs: %s", withSpecs)
	}
	if specsOnly := f.ok("ready", map[string]any{"show_specs": true, "show_issues": false}); specsOnly.has("issues") {
		t.Errorf("ready with show_issues false lists issues: %s", specsOnly)
	}

	// The lists: 50 by default.
	list := f.ok("list_issues", nil)
	if n := len(list.list("issues")); n != 50 {
		t.Errorf("list_issues: %d, want the default 50", n)
	}
	list.eq(60, "total")
	list.eq(true, "truncated")
	for _, k := range []string{"id", "title", "status", "priority", "type", "description"} {
		if !list.at("issues", 0).has(k) {
			t.Errorf("compact issue lacks %s: %s", k, list.at("issues", 0))
		}
	}
	if n := len(f.ok("search", map[string]any{"query": "task"}).list("results")); n != 50 {
		t.Errorf("search: %d results, want the default 50", n)
	}
	blocked := f.ok("blocked_issues", nil)
	if !blocked.has("issues") || blocked.has("specs") {
		t.Errorf("blocked_issues by default: %s", blocked)
	}
	if f.ok("status", nil).at("issues").has("ready_ids") {
		t.Error("status without verbose lists ids")
	}
	for i := range 50 {
		f.ok("add_feedback", map[string]any{"issue_id": id, "spec_id": sp.str("id"), "content": fmt.Sprint("Note ", i), "line": 1})
	}
	fl := f.ok("list_feedback", nil)
	if n := len(fl.list("feedback")); n != 50 {
		t.Errorf("list_feedback: %d, want the default 50", n)
	}
	fl.eq(51, "total")
	for i := range 50 {
		f.ok("create_spec", map[string]any{"title": fmt.Sprint("Spec ", i)})
	}
	if n := len(f.ok("list_specs", nil).list("specs")); n != 50 {
		t.Errorf("list_specs: %d, want the default 50", n)
	}
}
