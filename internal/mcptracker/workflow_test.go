package mcptracker_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/mcptracker"
	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/trackertest"
)

// A whole agent session through MCP only, from init to the counts.
func TestAgentWorkflow(t *testing.T) {
	f := connect(t, mcptracker.Options{Actor: "claude"})
	f.ok("init", nil).eq(true, "success")

	design := "# Rate limiting\n\n## Limits\n\nEach client gets 100 requests per minute.\nBursts may reach 20 more.\n\n## Errors\n\nOver the limit, answer 429.\n"
	spec := f.ok("create_spec", map[string]any{"title": "Rate limiting", "type": "api", "design": design}).str("id")

	// The middleware cannot start before the counter store exists: it is
	// blocked by it (from = the waiting issue).
	store := f.ok("create_issue", map[string]any{"title": "Counter store", "priority": 1}).str("id")
	mw := f.ok("create_issue", map[string]any{"title": "Rate limit middleware", "priority": 0, "description": "Enforce the limits"}).str("id")
	f.ok("link", map[string]any{"from_id": mw, "to_id": store, "type": "blocks"})
	f.ok("link", map[string]any{"from_id": mw, "to_id": spec, "type": "implements"})

	ready := f.ok("ready", nil)
	if ids := ready.ids("issues"); !slices.Equal(ids, []string{store}) {
		t.Fatalf("ready = %v, want only the unblocked %s (the middleware waits for it)", ids, store)
	}

	// Claim it.
	claimed := f.ok("update_issue", map[string]any{"issue_id": store, "status": "in_progress", "assignee": "claude"})
	claimed.eq("in_progress", "status")
	claimed.eq("claude", "assignee")
	if ids := f.ok("ready", nil).ids("issues"); len(ids) != 0 {
		t.Errorf("ready after the claim = %v, want nothing (claimed and blocked)", ids)
	}

	shown := f.ok("show_issue", map[string]any{"issue_id": store})
	shown.eq("in_progress", "status")
	shown.eq(mw, "relationships", "incoming", 0, "from")
	shown.eq("blocks", "relationships", "incoming", 0, "type")
	mwShown := f.ok("show_issue", map[string]any{"issue_id": mw})
	mwShown.eq([]map[string]any{{"id": store, "title": "Counter store", "status": "in_progress", "type": "task", "via": nil}}, "blocked_by")

	sp := f.ok("show_spec", map[string]any{"spec_id": spec})
	sp.eq(design, "content")
	sp.eq(mw, "relationships", "incoming", 0, "from")
	sp.eq("implements", "relationships", "incoming", 0, "type")

	// The spec is unclear about bursts: anchored feedback by text.
	fb := f.ok("add_feedback", map[string]any{"issue_id": store, "spec_id": spec, "content": "Per minute or per second bursts?",
		"type": "question", "text": "Bursts may"})
	fb.eq(6, "anchor", "line_number")
	fb.eq("Limits", "anchor", "section_heading")
	fb.eq("Bursts may", "anchor", "text_snippet")
	fb.eq(3, "anchor", "line_offset")
	fb.eq("valid", "anchor", "anchor_status")
	fbs := f.ok("list_feedback", map[string]any{"spec_id": spec})
	fbs.eq(1, "total")
	fbs.eq(map[string]any{"id": fb.str("id"), "issue_id": store, "spec_id": spec, "type": "question", "status": "open",
		"anchor_status": "valid", "line_number": 6, "content": "Per minute or per second bursts?"}, "feedback", 0)
	f.ok("show_spec", map[string]any{"spec_id": spec}).eq(fb.str("id"), "feedback", 0, "id")
	f.ok("show_issue", map[string]any{"issue_id": store}).eq(fb.str("id"), "feedback", 0, "id")

	// Done: closing the store unblocks the middleware.
	f.ok("close_issue", map[string]any{"issue_ids": []string{store}, "reason": "Redis-backed counters"}).eq(true, 0, "success")
	if ids := f.ok("ready", nil).ids("issues"); !slices.Equal(ids, []string{mw}) {
		t.Errorf("ready after the close = %v, want %s", ids, mw)
	}
	if n := len(f.ok("blocked_issues", nil).list("issues")); n != 0 {
		t.Errorf("blocked_issues after the close: %d items", n)
	}

	// The counts agree with all of the above.
	st := f.ok("stats", nil)
	st.eq(1, "specs", "total")
	st.eq(1, "specs", "ready")
	st.eq(2, "issues", "total")
	st.eq(map[string]any{"open": 1, "in_progress": 0, "blocked": 0, "closed": 1}, "issues", "by_status")
	st.eq(1, "issues", "ready")
	st.eq(0, "issues", "blocked")
	st.eq(2, "relationships", "total")
	st.eq(1, "relationships", "by_type", "blocks")
	st.eq(1, "relationships", "by_type", "implements")
	st.eq(map[string]any{"specs_updated": 1, "issues_updated": 2, "issues_created": 2, "issues_closed": 1}, "recent_activity")
	status := f.ok("status", map[string]any{"verbose": true})
	status.eq(2, "issues", "total")
	status.eq([]string{mw}, "issues", "ready_ids")
	status.eq([]any{}, "issues", "blocked_ids")

	// Everything was written to the tracked files, recorded as the actor.
	issues := trackertest.ReadRecords[tracker.IssueRecord](t, filepath.Join(f.dir, ".sudocode"))
	if ids := trackertest.IDs(issues); len(ids) != 2 || !slices.Contains(ids, store) || !slices.Contains(ids, mw) {
		t.Errorf("the issue files hold %v, want %s and %s", ids, store, mw)
	}
	for _, r := range issues {
		if r.CreatedBy != "claude" {
			t.Errorf("issue %s recorded as created by %q, want claude", r.ID, r.CreatedBy)
		}
	}
}

// Options.Dir is where the tracker is, whatever the environment says;
// without it the environment decides.
func TestOptionsDir(t *testing.T) {
	elsewhere := t.TempDir()
	other := connect(t, mcptracker.Options{Dir: elsewhere})
	other.ok("init", map[string]any{"prefix": "other"})
	t.Setenv("SUDOCODE_WORKING_DIR", elsewhere)
	t.Setenv("SUDOCODE_DB", filepath.Join(elsewhere, ".sudocode", "cache.db"))

	f := connect(t, mcptracker.Options{})
	f.fails("list_issues", nil, "not_found")
	f.ok("init", nil)
	id := f.ok("create_issue", map[string]any{"title": "Here"}).str("id")
	if !strings.HasPrefix(id, "sudocode-") {
		t.Errorf("created %s in the environment's tracker, not in Options.Dir", id)
	}
	f.ok("show_issue", map[string]any{"issue_id": id})

	// A subdirectory finds the tracker above it.
	sub := filepath.Join(f.dir, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	connect(t, mcptracker.Options{Dir: sub}).ok("show_issue", map[string]any{"issue_id": id})

	// Without Dir, SUDOCODE_DB (then SUDOCODE_WORKING_DIR) is the tracker.
	env := connectServer(t, mcptracker.New(mcptracker.Options{})) // no logger: discarded
	if !strings.HasPrefix(env.ok("create_issue", map[string]any{"title": "There"}).str("id"), "other-") {
		t.Error("without Options.Dir the environment's tracker is not used")
	}
	other.ok("list_issues", nil).eq(1, "total")
}

// A hand edit of the files between two calls is seen by the second. (The
// edits change the file's size: the store compares size and mtime, and an
// mtime may not move within a clock tick.)
func TestHandEditSeen(t *testing.T) {
	f := initialised(t, mcptracker.Options{})
	id := f.ok("create_issue", map[string]any{"title": "Original title"}).str("id")
	f.ok("list_issues", nil).eq("Original title", "issues", 0, "title")
	path := trackertest.RecordFile[tracker.IssueRecord](filepath.Join(f.dir, ".sudocode"), id)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(b), "Original title", "Edited by a person", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	f.ok("show_issue", map[string]any{"issue_id": id}).eq("Edited by a person", "title")
	f.ok("list_issues", nil).eq("Edited by a person", "issues", 0, "title")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	f.ok("list_issues", nil).eq(0, "total")
}
