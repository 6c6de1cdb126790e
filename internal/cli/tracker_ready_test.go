package cli_test

import (
	"strings"
	"testing"
)

// ids returns the "id" of each item.
func ids(items []js) []string {
	out := []string{}
	for _, it := range items {
		out = append(out, it.str("id"))
	}
	return out
}

func TestTrackerLinkReadyBlocked(t *testing.T) {
	t.Parallel()
	p := newProj(t)
	epic := p.js("issue", "create", "Epic", "-t", "epic", "-p", "1").str("id")
	child := p.js("issue", "create", "Child", "--parent", epic, "-a", "ann").str("id")
	grand := p.js("issue", "create", "Grandchild", "--parent", child, "-p", "0").str("id")
	blocker := p.js("issue", "create", "Blocker", "-p", "3").str("id")
	free := p.js("issue", "create", "Free", "-a", "ann").str("id")
	spec := p.js("spec", "create", "Spec").str("id")
	spec2 := p.js("spec", "create", "Spec 2", "-p", "0").str("id")

	// link: the result, the default type, and the two directions.
	l := p.js("link", epic, blocker, "--type", "blocks")
	l.keys(linkKeys...)
	l.eq(map[string]any{"from": epic, "to": blocker, "type": "blocks", "success": true})
	p.js("link", free, spec).eq("references", "type")
	p.js("link", spec2, spec, "--type", "depends-on")
	p.js("link", free, spec, "--type", "implements")
	p.js("link", free, blocker, "--type", "related")
	p.js("link", free, epic, "--type", "discovered-from")

	// ready: only issues by default, priority then age; nothing blocked.
	r := p.js("ready")
	r.keys("issues", "next_cursor")
	if got := ids(r.list("issues")); strings.Join(got, ",") != free+","+blocker {
		t.Errorf("ready = %q, want [Free Blocker]", got)
	}
	for _, it := range r.list("issues") {
		it.keys(compactKeys...)
	}
	r = p.js("ready", "--specs")
	r.keys("specs", "next_cursor")
	if got := ids(r.list("specs")); strings.Join(got, ",") != spec {
		t.Errorf("ready --specs = %q, want [%s]", got, spec)
	}
	r = p.js("ready", "--specs", "--issues")
	r.keys("issues", "specs", "next_cursor")
	if got := ids(p.js("ready", "--assignee", "ann").list("issues")); strings.Join(got, ",") != free {
		t.Errorf("ready --assignee ann = %q", got)
	}
	if got := ids(p.js("ready", "--priority", "3").list("issues")); strings.Join(got, ",") != blocker {
		t.Errorf("ready --priority 3 = %q", got)
	}
	if got := ids(p.js("ready", "--limit", "1").list("issues")); len(got) != 1 {
		t.Errorf("ready --limit 1 = %q", got)
	}

	// blocked: each item with its blockers; inherited ones name the ancestor.
	b := p.js("blocked")
	b.keys("issues", "next_cursor")
	items := b.list("issues")
	if got := ids(items); strings.Join(got, ",") != grand+","+epic+","+child {
		t.Fatalf("blocked = %q, want [Grandchild Epic Child]", got)
	}
	for _, it := range items {
		it.keys(blockedItemKeys...)
		bs := it.list("blocked_by")
		if len(bs) != 1 {
			t.Fatalf("%s blocked_by %s", it.str("id"), it.get("blocked_by").raw)
		}
		bs[0].keys(blockerKeys...)
	}
	items[1].eq(map[string]any{"id": blocker, "title": "Blocker", "status": "open", "type": "task", "via": nil}, "blocked_by", "0")
	items[0].eq(epic, "blocked_by", "0", "via")
	items[2].eq(epic, "blocked_by", "0", "via")
	bs := p.js("blocked", "--specs")
	bs.keys("specs", "next_cursor")
	if got := bs.list("specs"); len(got) != 1 || got[0].str("id") != spec2 || got[0].str("blocked_by", "0", "id") != spec {
		t.Errorf("blocked --specs: %s", bs.raw)
	}
	p.js("blocked", "--specs", "--issues").keys("issues", "specs", "next_cursor")

	// Done releases: a closed issue, an approved spec.
	p.js("issue", "close", blocker)
	p.js("spec", "update", spec, "--status", "approved")
	if got := ids(p.js("ready").list("issues")); strings.Join(got, ",") != grand+","+epic+","+child+","+free {
		t.Errorf("ready after closing the blocker = %q", got)
	}
	p.js("blocked", "--specs", "--issues").eq(map[string]any{"issues": []any{}, "specs": []any{}, "next_cursor": nil})
	if got := ids(p.js("ready", "--specs").list("specs")); strings.Join(got, ",") != spec2 {
		t.Errorf("ready --specs after approving = %q", got)
	}

	// unlink.
	u := p.js("unlink", free, spec, "--type", "implements")
	u.keys(linkKeys...)
	u.eq(map[string]any{"from": free, "to": spec, "type": "implements", "success": true})
	if out := p.js("issue", "show", free).list("relationships", "outgoing"); len(out) != 3 {
		t.Errorf("after unlink, %d outgoing links, want 3", len(out))
	}
	p.js("unlink", free, spec) // the default type, references
	if r := p.run("unlink", free, spec); r.code != 3 || !strings.Contains(r.stderr, "no references link") {
		t.Errorf("unlink of an absent link: exit %d, stderr %q", r.code, r.stderr)
	}
	// A status of blocked is listed as blocked, with no blocker.
	p.js("issue", "update", free, "--status", "blocked")
	bl := p.js("blocked").list("issues")
	if len(bl) != 1 || bl[0].str("id") != free {
		t.Fatalf("blocked with a blocked status: %v", ids(bl))
	}
	bl[0].eq([]any{}, "blocked_by")
}

func TestTrackerStatsStatus(t *testing.T) {
	t.Parallel()
	p := newProj(t)
	s := p.js("stats")
	s.keys("specs", "issues", "relationships", "recent_activity")
	s.get("specs").keys("total", "by_status", "by_type", "ready")
	s.get("issues").keys("total", "by_status", "by_type", "ready", "blocked")
	s.get("relationships").keys("total", "by_type")
	s.get("recent_activity").keys("specs_updated", "issues_updated", "issues_created", "issues_closed")
	s.eq(map[string]any{"draft": 0, "review": 0, "approved": 0, "deprecated": 0}, "specs", "by_status")
	s.eq(map[string]any{"architecture": 0, "api": 0, "database": 0, "feature": 0, "research": 0}, "specs", "by_type")
	s.eq(map[string]any{"open": 0, "in_progress": 0, "blocked": 0, "closed": 0}, "issues", "by_status")
	s.eq(map[string]any{"bug": 0, "feature": 0, "task": 0, "epic": 0, "chore": 0}, "issues", "by_type")
	s.eq(map[string]any{"blocks": 0, "implements": 0, "references": 0, "depends-on": 0, "parent-child": 0,
		"discovered-from": 0, "related": 0}, "relationships", "by_type")

	a := p.js("issue", "create", "A", "-t", "bug").str("id")
	b := p.js("issue", "create", "B", "-p", "1").str("id")
	c := p.js("issue", "create", "C").str("id")
	p.js("spec", "create", "S", "-t", "api")
	p.js("link", a, b, "--type", "blocks")
	p.js("issue", "close", c)
	s = p.js("stats")
	s.eq(map[string]any{"total": 1, "by_status": map[string]any{"draft": 1, "review": 0, "approved": 0, "deprecated": 0},
		"by_type": map[string]any{"architecture": 0, "api": 1, "database": 0, "feature": 0, "research": 0}, "ready": 1}, "specs")
	s.eq(map[string]any{"total": 3, "by_status": map[string]any{"open": 2, "in_progress": 0, "blocked": 0, "closed": 1},
		"by_type": map[string]any{"bug": 1, "feature": 0, "task": 2, "epic": 0, "chore": 0}, "ready": 1, "blocked": 1}, "issues")
	s.eq(1, "relationships", "total")
	s.eq(1, "relationships", "by_type", "blocks")
	s.eq(map[string]any{"specs_updated": 1, "issues_updated": 3, "issues_created": 3, "issues_closed": 1}, "recent_activity")

	st := p.js("status")
	st.keys("specs", "issues")
	st.get("specs").keys("total", "by_status")
	st.get("issues").keys("total", "by_status", "ready", "blocked")
	st.eq(map[string]any{"total": 3, "by_status": map[string]any{"open": 2, "in_progress": 0, "blocked": 0, "closed": 1},
		"ready": 1, "blocked": 1}, "issues")
	v := p.js("status", "--verbose")
	v.get("issues").keys("total", "by_status", "ready", "blocked", "ready_ids", "blocked_ids")
	v.eq([]string{b}, "issues", "ready_ids")
	v.eq([]string{a}, "issues", "blocked_ids")
	// Empty lists are lists.
	p.js("issue", "close", a, b)
	v = p.js("status", "-v")
	v.eq([]string{}, "issues", "ready_ids")
	v.eq([]string{}, "issues", "blocked_ids")

	if out := p.human("stats"); !strings.Contains(out, "Issues") || !strings.Contains(out, "Last 7 days") {
		t.Errorf("stats said %q", out)
	}
	if out := p.human("status", "--verbose"); !strings.Contains(out, "Ready") {
		t.Errorf("status said %q", out)
	}
	p.human("status")
}

func TestTrackerReadyHuman(t *testing.T) {
	t.Parallel()
	p := newProj(t)
	a := p.js("issue", "create", "A").str("id")
	b := p.js("issue", "create", "B").str("id")
	s := p.js("spec", "create", "S").str("id")
	// The type's name reads the other way round: say who waits for whom.
	if out := p.human("link", a, b, "--type", "blocks"); !strings.Contains(out, "Linked: "+a+" waits for "+b+" [blocks]") {
		t.Errorf("link said %q", out)
	}
	if out := p.human("ready", "--specs", "--issues"); !strings.Contains(out, "Ready issues:") || !strings.Contains(out, b) || !strings.Contains(out, s) {
		t.Errorf("ready said %q", out)
	}
	if out := p.human("blocked"); !strings.Contains(out, a) || !strings.Contains(out, "waits for") {
		t.Errorf("blocked said %q", out)
	}
	if out := p.human("blocked", "--specs"); !strings.Contains(out, "(nothing blocked)") {
		t.Errorf("blocked --specs said %q", out)
	}
	if out := p.human("unlink", a, b, "--type", "blocks"); !strings.Contains(out, "Removed the link: "+a+" waits for "+b+" [blocks]") {
		t.Errorf("unlink said %q", out)
	}
	p.human("link", "--help")
}
