package mcptracker_test

import (
	"testing"

	"github.com/sudocode/sudocode/internal/mcptracker"
)

// TestEveryToolMatchesItsOutputSchema calls every tool on a real tracker
// (its JSONL and markdown files in a temporary directory), with lists that
// hold items of every kind, and checks each result — and a tool error —
// against the output schema the tool publishes (the fixture checks every
// call). A field renamed in a result type, or a value of another shape
// than its type says (null for a string), fails here.
func TestEveryToolMatchesItsOutputSchema(t *testing.T) {
	f := initialised(t, mcptracker.Options{})
	spec := f.ok("create_spec", map[string]any{"title": "Auth", "design": "# Auth\n\nTokens expire.\n\n## Refresh\n\nRefresh early.\n", "tags": []string{"auth"}}).str("id")
	parent := f.ok("create_issue", map[string]any{"title": "Epic", "tags": []string{"epic"}}).str("id")
	child := f.ok("create_issue", map[string]any{"title": "Child token work", "parent": parent}).str("id")
	batch := f.ok("create_issues", map[string]any{"issues": []map[string]any{{"title": "Blocker"}, {"title": "Other", "priority": 1}}})
	blocker := batch.str(0, "id")
	other := batch.str(1, "id")
	f.ok("link", map[string]any{"from_id": parent, "to_id": blocker, "type": "blocks"}) // child inherits it: via is a string
	f.ok("link", map[string]any{"from_id": other, "to_id": spec, "type": "depends-on"}) // a direct blocker: via is null
	f.ok("link", map[string]any{"from_id": child, "to_id": spec, "type": "implements"})
	f.ok("update_issue", map[string]any{"issue_id": child, "assignee": "ana", "status": "in_progress"})
	f.ok("update_issues", map[string]any{"updates": []map[string]any{{"issue_id": other, "priority": 2}}})
	fb := f.ok("add_feedback", map[string]any{"issue_id": child, "spec_id": spec, "content": "How long?", "text": "Tokens expire"}).str("id")
	fb2 := f.ok("add_feedback", map[string]any{"issue_id": child, "spec_id": spec, "content": "When?", "line": 7, "type": "question"}).str("id")
	f.ok("update_spec", map[string]any{"spec_id": spec, "content": "# Auth\n\nSessions end.\n"})
	for _, call := range []struct {
		tool string
		args map[string]any
	}{
		{"ready", map[string]any{"show_specs": true}},
		{"list_issues", nil},
		{"add_comment", map[string]any{"issue_id": child, "body": "Started on the **token** store."}},
		{"show_issue", map[string]any{"issue_id": child}},
		{"show_issue", map[string]any{"issue_id": parent}},
		{"blocked_issues", map[string]any{"show_specs": true}},
		{"list_specs", nil},
		{"show_spec", map[string]any{"spec_id": spec}},
		{"list_feedback", nil},
		{"show_feedback", map[string]any{"feedback_id": fb}},
		{"stale_feedback", nil},
		{"acknowledge_feedback", map[string]any{"feedback_id": fb}},
		{"resolve_feedback", map[string]any{"feedback_id": fb, "comment": "Answered"}},
		{"wontfix_feedback", map[string]any{"feedback_id": fb2, "reason": "Out of scope"}},
		{"relocate_feedback", map[string]any{"feedback_id": fb2, "line": 1}},
		{"show_feedback", map[string]any{"feedback_id": fb2}},
		{"stats", nil},
		{"status", map[string]any{"verbose": true}},
		{"status", nil},
		{"search", map[string]any{"query": "token"}},
		{"unlink", map[string]any{"from_id": child, "to_id": spec, "type": "implements"}},
		{"close_issue", map[string]any{"issue_ids": []string{blocker, "sudocode-none"}, "reason": "Done"}},
		{"init", nil},
	} {
		f.ok(call.tool, call.args)
	}
	// A tool error carries the envelope, which the schema accepts too.
	f.fails("show_issue", map[string]any{"issue_id": "sudocode-none"}, "not_found")
	if missing := f.schemas.Unchecked(); len(missing) > 0 {
		t.Errorf("tools never checked: %v", missing)
	}
}
