package cli_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/tracker"
)

var (
	issueIDRE = regexp.MustCompile(`^sudocode-[0-9a-z]{4}$`)
	uuidRE    = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
)

func TestTrackerInit(t *testing.T) {
	t.Parallel()
	p := newBareProj(t)
	j := p.js("init")
	j.keys("success", "path", "prefix")
	j.eq(true, "success")
	j.eq("sudocode", "prefix")
	if got := j.str("path"); got != p.dir {
		t.Errorf("init path = %q, want %q", got, p.dir)
	}
	for _, f := range []string{"config.json", ".gitignore", ".gitattributes", "specs"} {
		if _, err := os.Stat(filepath.Join(p.dir, f)); err != nil {
			t.Errorf("init did not create %s: %v", f, err)
		}
	}
	// No record file: each shard file appears with its first record, and
	// a first-layout file would be migrated by the next command.
	for _, f := range []string{tracker.RecordsDir, "issues.jsonl", "specs.jsonl", "feedback.jsonl"} {
		if _, err := os.Stat(filepath.Join(p.dir, f)); err == nil {
			t.Errorf("init created %s", f)
		}
	}
	// Again with the same prefix: a success that changes nothing.
	before := p.snapshot()
	p.js("init").eq(true, "success")
	p.human("init")
	sameFiles(t, "a second init", before, p.snapshot())
	// Another prefix is a conflict; a bad prefix is invalid.
	if r := p.run("init", "--prefix", "other"); r.code != 4 || !strings.Contains(r.stderr, `already initialised with prefix "sudocode"`) {
		t.Errorf("init --prefix other on a tracker: exit %d, stderr %q", r.code, r.stderr)
	}
	sameFiles(t, "a refused init", before, p.snapshot())

	q := newBareProj(t)
	if r := q.run("init", "--prefix", "Bad-Prefix"); r.code != 2 || !strings.Contains(r.stderr, "invalid prefix") {
		t.Errorf("init --prefix Bad-Prefix: exit %d, stderr %q", r.code, r.stderr)
	}
	if _, err := os.Stat(q.dir); !os.IsNotExist(err) {
		t.Errorf("a refused init created %s", q.dir)
	}
	out := q.human("init", "--prefix", "web")
	if !strings.Contains(out, "prefix web") {
		t.Errorf("init --prefix web said %q", out)
	}
	if id := q.js("issue", "create", "First").str("id"); !regexp.MustCompile(`^web-[0-9a-z]{4}$`).MatchString(id) {
		t.Errorf("issue id %q does not use the prefix web", id)
	}
	if id := q.js("spec", "create", "First").str("id"); !regexp.MustCompile(`^web-spec-[0-9a-z]{4}$`).MatchString(id) {
		t.Errorf("spec id %q does not use the prefix web", id)
	}
}

func TestTrackerIssueCommands(t *testing.T) {
	t.Parallel()
	p := newProj(t)

	// An empty list is a list.
	empty := p.js("issue", "list")
	empty.keys("issues", "total", "truncated", "hint", "next_cursor")
	if len(empty.list("issues")) != 0 || !strings.Contains(string(empty.raw), `"issues": []`) {
		t.Errorf("empty issue list: %s", empty.raw)
	}
	empty.eq(0, "total")
	empty.eq(false, "truncated")
	empty.null("hint")

	// create with the defaults: every optional field null.
	a := p.js("issue", "create", "  Fix the login  ")
	checkIssue(a)
	idA := a.newID(issueIDRE)
	a.eq("Fix the login", "title")
	a.eq("", "description")
	a.eq("open", "status")
	a.eq("task", "type")
	a.eq(2, "priority")
	a.eq([]string{}, "tags")
	a.eq("alice", "created_by")
	a.null("assignee", "estimate", "parent_id", "closed_at", "close_reason")
	if a.str("created_at") != a.str("updated_at") {
		t.Errorf("a new issue's created_at %s and updated_at %s differ", a.str("created_at"), a.str("updated_at"))
	}

	// create with every option.
	b := p.js("issue", "create", "Write the parser", "-d", "Use a **PEG**.", "--type", "bug", "--priority", "0",
		"--assignee", "bob", "--tags", "parser,go,parser", "--estimate", "90", "--parent", idA)
	checkIssue(b)
	idB := b.str("id")
	b.eq("Use a **PEG**.", "description")
	b.eq("bug", "type")
	b.eq(0, "priority")
	b.eq("bob", "assignee")
	b.eq(90, "estimate")
	b.eq(idA, "parent_id")
	b.eq([]string{"go", "parser"}, "tags")
	c := p.js("issue", "create", "Chore", "-t", "chore", "-p", "1", "-a", "carol")
	idC := c.str("id")

	// list: compact items, highest priority then oldest first, filters, limit.
	l := p.js("issue", "list")
	l.keys("issues", "total", "truncated", "hint", "next_cursor")
	items := l.list("issues")
	if len(items) != 3 {
		t.Fatalf("issue list: %s", l.raw)
	}
	for _, it := range items {
		it.keys(compactKeys...)
	}
	for i, want := range []string{idB, idC, idA} {
		items[i].eq(want, "id")
	}
	items[0].eq("Use a **PEG**.", "description")
	l.eq(3, "total")
	l.null("hint")
	for _, f := range []struct {
		args []string
		want []string
	}{
		{[]string{"--status", "open"}, []string{idB, idC, idA}},
		{[]string{"--type", "bug"}, []string{idB}},
		{[]string{"--priority", "1"}, []string{idC}},
		{[]string{"--priority", "0", "--type", "chore"}, []string{}},
		{[]string{"--assignee", "carol"}, []string{idC}},
		{[]string{"--status", "closed"}, []string{}},
	} {
		got := []string{}
		for _, it := range p.js(append([]string{"issue", "list"}, f.args...)...).list("issues") {
			got = append(got, it.str("id"))
		}
		if strings.Join(got, ",") != strings.Join(f.want, ",") {
			t.Errorf("issue list %v = %q, want %q", f.args, got, f.want)
		}
	}
	cut := p.js("issue", "list", "--limit", "2")
	if len(cut.list("issues")) != 2 {
		t.Errorf("issue list --limit 2: %s", cut.raw)
	}
	cut.eq(3, "total")
	cut.eq(true, "truncated")
	if h := cut.str("hint"); !strings.Contains(h, "--limit") || !strings.Contains(h, "--cursor") {
		t.Errorf("hint %q does not say how to see more", h)
	}
	// --cursor continues after the page: the third issue, and no more.
	rest := p.js("issue", "list", "--limit", "2", "--cursor", cut.str("next_cursor"))
	if got := append(ids(cut.list("issues")), ids(rest.list("issues"))...); len(got) != 3 || len(slices.Compact(slices.Sorted(slices.Values(got)))) != 3 {
		t.Errorf("issue list in pages of 2: %q", got)
	}
	rest.eq(false, "truncated")
	rest.null("next_cursor")
	rest.null("hint")
	for _, bad := range []string{"garbage", cut.str("next_cursor") + "x"} {
		if r := p.run("issue", "list", "--limit", "2", "--cursor", bad, "--json"); r.code != 2 || !strings.Contains(r.stderr, "invalid cursor") {
			t.Errorf("issue list --cursor %q: exit %d, stderr %q; want 2 and invalid cursor", bad, r.code, r.stderr)
		}
	}
	// A cursor is bound to its filters.
	if r := p.run("issue", "list", "--status", "open", "--cursor", cut.str("next_cursor"), "--json"); r.code != 2 || !strings.Contains(r.stderr, "other filters") {
		t.Errorf("issue list with another filter's cursor: exit %d, stderr %q", r.code, r.stderr)
	}

	// show: the issue, its links both ways, blockers and feedback given.
	sa := p.js("issue", "show", idA)
	sa.keys(issueDetailKeys...)
	sa.get("relationships").keys("outgoing", "incoming")
	out := sa.list("relationships", "outgoing")
	if len(out) != 1 {
		t.Fatalf("A's outgoing links: %s", sa.get("relationships").raw)
	}
	checkRel(out[0])
	out[0].eq(map[string]any{"from": idA, "from_type": "issue", "to": idB, "to_type": "issue", "type": "parent-child",
		"created_at": out[0].str("created_at"), "created_by": "alice"})
	sa.eq([]any{}, "relationships", "incoming")
	sa.eq([]any{}, "blocked_by")
	sa.eq([]any{}, "feedback")
	sb := p.js("issue", "show", idB)
	if in := sb.list("relationships", "incoming"); len(in) != 1 || in[0].str("from") != idA {
		t.Errorf("B's incoming links: %s", sb.get("relationships").raw)
	}
	sb.eq([]any{}, "relationships", "outgoing")

	// A blocked issue lists its blockers; its child inherits them, via A.
	p.js("link", idA, idC, "--type", "blocks")
	sa = p.js("issue", "show", idA)
	bl := sa.list("blocked_by")
	if len(bl) != 1 {
		t.Fatalf("A blocked_by: %s", sa.get("blocked_by").raw)
	}
	bl[0].keys(blockerKeys...)
	bl[0].eq(map[string]any{"id": idC, "title": "Chore", "status": "open", "type": "chore", "via": nil})
	bb := p.js("issue", "show", idB).list("blocked_by")
	if len(bb) != 1 {
		t.Fatalf("B blocked_by: %v", bb)
	}
	bb[0].eq(map[string]any{"id": idC, "title": "Chore", "status": "open", "type": "chore", "via": idA})

	// update: the given fields only.
	u := p.js("issue", "update", idA, "--status", "in_progress", "--title", "Fix the login page", "--assignee", "dan",
		"--priority", "3", "--type", "feature", "--estimate", "15", "--tags", "web,auth", "-d", "Details.")
	checkIssue(u)
	u.eq("in_progress", "status")
	u.eq("Fix the login page", "title")
	u.eq("dan", "assignee")
	u.eq(3, "priority")
	u.eq("feature", "type")
	u.eq(15, "estimate")
	u.eq([]string{"auth", "web"}, "tags")
	u.eq("Details.", "description")
	u.eq(a.str("created_at"), "created_at")
	if !u.time("updated_at").After(u.time("created_at")) {
		t.Errorf("updated_at %s is not after created_at %s", u.str("updated_at"), u.str("created_at"))
	}
	u = p.js("issue", "update", idA, "--assignee", "", "--tags=")
	u.null("assignee")
	u.eq([]string{}, "tags")
	u.eq("Fix the login page", "title")
	u.eq("in_progress", "status")
	// Closing by update sets closed_at; reopening clears it.
	u = p.js("issue", "update", idA, "--status", "closed")
	u.time("closed_at")
	u = p.js("issue", "update", idA, "--status", "open")
	u.null("closed_at", "close_reason")

	// close: several ids, a result each.
	res := p.js("issue", "close", idA, idC, "--reason", "Shipped in 1.2")
	rs := res.list()
	if len(rs) != 2 {
		t.Fatalf("close: %s", res.raw)
	}
	for i, id := range []string{idA, idC} {
		rs[i].keys(closeResultKeys...)
		rs[i].eq(map[string]any{"id": id, "success": true, "error": nil})
	}
	sa = p.js("issue", "show", idA)
	sa.eq("closed", "status")
	sa.eq("Shipped in 1.2", "close_reason")
	sa.time("closed_at")
	// A closed blocker releases: B is ready now.
	p.js("issue", "show", idB).eq([]any{}, "blocked_by")
	// Closing a closed issue succeeds and changes nothing.
	before := p.snapshot()
	p.js("issue", "close", idA)
	sameFiles(t, "closing a closed issue", before, p.snapshot())
	// The default reason.
	p.js("issue", "close", idB)
	p.js("issue", "show", idB).eq("Completed", "close_reason")

	// close with an unknown id: the known one is closed, the result says
	// which failed, and the exit code is not 0.
	idD := p.js("issue", "create", "D").str("id")
	r := p.run("issue", "close", idD, "sudocode-zzzz", "--json")
	if r.code != 3 {
		t.Errorf("close with an unknown id: exit %d, want 3 (stderr %q)", r.code, r.stderr)
	}
	cr := js{t, []byte(r.stdout), "close with an unknown id"}
	crs := cr.list()
	if len(crs) != 2 {
		t.Fatalf("close with an unknown id printed %q", r.stdout)
	}
	crs[0].eq(map[string]any{"id": idD, "success": true, "error": nil})
	crs[1].keys(closeResultKeys...)
	crs[1].eq("sudocode-zzzz", "id")
	crs[1].eq(false, "success")
	if msg := crs[1].str("error"); !strings.Contains(msg, "sudocode-zzzz not found") {
		t.Errorf("close error %q", msg)
	}
	p.js("issue", "show", idD).eq("closed", "status")
	r = p.run("issue", "close", "sudocode-yyyy")
	if r.code != 3 || !strings.Contains(r.stdout, "Not closed sudocode-yyyy") {
		t.Errorf("close of an unknown id without --json: exit %d, stdout %q", r.code, r.stdout)
	}
}

// TestTrackerIssueHuman runs every issue command without --json.
func TestTrackerIssueHuman(t *testing.T) {
	t.Parallel()
	p := newProj(t)
	if out := p.human("issue", "list"); !strings.Contains(out, "(none)") {
		t.Errorf("empty issue list said %q", out)
	}
	out := p.human("issue", "create", "Fix the login", "-p", "1", "--tags", "web")
	m := regexp.MustCompile(`Created issue (sudocode-[0-9a-z]+): Fix the login`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("issue create said %q", out)
	}
	id := m[1]
	child := p.js("issue", "create", "Child", "--parent", id).str("id")
	if out := p.human("issue", "list"); !strings.Contains(out, id) || !strings.Contains(out, "Fix the login") || !strings.Contains(out, "2 total") {
		t.Errorf("issue list said %q", out)
	}
	if out := p.human("issue", "show", id); !strings.Contains(out, "Fix the login") || !strings.Contains(out, "this issue is the parent of "+child) {
		t.Errorf("issue show said %q", out)
	}
	blocker := p.js("issue", "create", "Blocker").str("id")
	p.js("link", id, blocker, "--type", "blocks")
	if out := p.human("issue", "show", child); !strings.Contains(out, "waits for:") || !strings.Contains(out, "(through its ancestor "+id+")") {
		t.Errorf("issue show of a child said %q", out)
	}
	if out := p.human("issue", "update", id, "--status", "in_progress"); !strings.Contains(out, "Updated issue "+id+" [in_progress]") {
		t.Errorf("issue update said %q", out)
	}
	if out := p.human("issue", "close", id, child); !strings.Contains(out, "Closed "+id) || !strings.Contains(out, "Closed "+child) {
		t.Errorf("issue close said %q", out)
	}
	p.human("issue")
	p.human("issue", "create", "--help")
}

// TestIssueShowText: the text of issue show gives a closed issue's close
// time and reason, and without an id the command says how to call it.
func TestIssueShowText(t *testing.T) {
	t.Parallel()
	p := newProj(t)
	id := p.js("issue", "create", "Fix the login").str("id")
	p.ok("issue", "close", id, "--reason", "Merged in the auth branch")
	if out := p.human("issue", "show", id); !strings.Contains(out, "closed ") || !strings.Contains(out, "Merged in the auth branch") {
		t.Errorf("issue show of a closed issue does not give its close reason:\n%s", out)
	}
	r := p.run("issue", "show")
	if r.code != 2 || !strings.Contains(r.stderr, "usage: sudocode issue show ID") {
		t.Errorf("issue show without an id: exit %d, stderr %q; want 2 and the usage", r.code, r.stderr)
	}
}
