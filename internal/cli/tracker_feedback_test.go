package cli_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/trackertest"
)

// loginMoved is loginSpec with the Errors section moved above Tokens.
const loginMoved = `# Login

Intro text.

## Errors

Return 401 on expiry.
Return 403 when forbidden.

## Tokens

Access tokens last 15 minutes.
Refresh tokens last 30 days.
`

func TestTrackerFeedbackCommands(t *testing.T) {
	t.Parallel()
	p := newProj(t)
	issue := p.js("issue", "create", "Reviewer").str("id")
	other := p.js("issue", "create", "Other").str("id")
	spec := p.js("spec", "create", "Login", "--design", loginSpec).str("id")

	empty := p.js("feedback", "list")
	empty.keys("feedback", "total", "truncated", "hint", "next_cursor")
	if !strings.Contains(string(empty.raw), `"feedback": []`) {
		t.Errorf("empty feedback list: %s", empty.raw)
	}

	// add at a text: the defaults, the anchor in full.
	a := p.js("feedback", "add", issue, spec, "--content", "Which lifetime for refresh tokens?", "--text", "Refresh tokens")
	checkFeedback(a)
	idA := a.str("id")
	if !regexp.MustCompile(`^sudocode-fb-[0-9a-z]{4}$`).MatchString(idA) {
		t.Errorf("feedback id %q", idA)
	}
	a.eq(issue, "issue_id")
	a.eq(spec, "spec_id")
	a.eq("ambiguity", "type")
	a.eq("open", "status")
	a.eq("Which lifetime for refresh tokens?", "content")
	a.eq("tester", "agent") // $USER
	a.null("resolution")
	an := a.get("anchor")
	an.eq("Tokens", "section_heading")
	an.eq(2, "section_level")
	an.eq(8, "line_number")
	an.eq(3, "line_offset")
	an.eq("Refresh tokens", "text_snippet")
	an.eq("Access tokens last 15 minutes.", "context_before")
	an.eq("## Errors", "context_after")
	if !regexp.MustCompile(`^[0-9a-f]{16}$`).MatchString(an.str("content_hash")) {
		t.Errorf("content_hash %q", an.str("content_hash"))
	}
	an.eq("valid", "anchor_status")
	an.eq(map[string]any{"line_number": 8, "section_heading": "Tokens"}, "original_location")

	// add at a line, with a type and an agent.
	b := p.js("feedback", "add", other, spec, "-c", "Say which error codes", "--line", "12", "--type", "missing_requirement", "--agent", "claude")
	checkFeedback(b)
	idB := b.str("id")
	b.eq("missing_requirement", "type")
	b.eq("claude", "agent")
	b.eq("Return 401 on expiry.", "anchor", "text_snippet")
	b.eq("", "anchor", "context_after")
	// A line before any heading has no section.
	c := p.js("feedback", "add", issue, spec, "-c", "Title?", "--line", "1", "-t", "question")
	c.eq("Login", "anchor", "section_heading")
	idC := c.str("id")

	// list: compact, oldest first, filters.
	l := p.js("feedback", "list")
	items := l.list("feedback")
	if len(items) != 3 {
		t.Fatalf("feedback list: %s", l.raw)
	}
	for _, it := range items {
		it.keys(compactFeedbackKeys...)
	}
	items[0].eq(map[string]any{"id": idA, "issue_id": issue, "spec_id": spec, "type": "ambiguity", "status": "open",
		"anchor_status": "valid", "line_number": 8, "content": "Which lifetime for refresh tokens?"})
	items[1].eq(idB, "id")
	items[2].eq(idC, "id")
	l.eq(3, "total")
	for _, f := range []struct {
		args []string
		n    int
	}{
		{[]string{"--issue", issue}, 2}, {[]string{"--issue", other}, 1}, {[]string{"--spec", spec}, 3},
		{[]string{"--type", "question"}, 1}, {[]string{"--status", "open"}, 3}, {[]string{"--status", "resolved"}, 0},
		{[]string{"--limit", "1"}, 1},
	} {
		if got := p.js(append([]string{"feedback", "list"}, f.args...)...).list("feedback"); len(got) != f.n {
			t.Errorf("feedback list %v: %d items, want %d", f.args, len(got), f.n)
		}
	}

	// show: the feedback and where its anchor points now.
	s := p.js("feedback", "show", idA)
	s.keys(feedbackDetailKeys...)
	s.get("location").keys(feedbackLocationKeys...)
	s.eq(map[string]any{"line_number": 8, "line_text": "Refresh tokens last 30 days.", "section_heading": "Tokens"}, "location")
	// The issue shows the feedback it gave.
	if fb := p.js("issue", "show", issue).list("feedback"); len(fb) != 2 || fb[0].str("id") != idA {
		t.Errorf("issue show's feedback: %v", fb)
	}

	// acknowledge, resolve --comment, wont-fix --reason.
	ack := p.js("feedback", "acknowledge", idA)
	checkFeedback(ack)
	ack.eq("acknowledged", "status")
	ack.null("resolution")
	res := p.js("feedback", "resolve", idA, "--comment", "Clarified: 30 days")
	checkFeedback(res)
	res.eq("resolved", "status")
	res.eq("Clarified: 30 days", "resolution")
	wf := p.js("feedback", "wont-fix", idC, "--reason", "The title is fine")
	wf.eq("wont_fix", "status")
	wf.eq("The title is fine", "resolution")
	if got := p.js("feedback", "list", "--status", "resolved").list("feedback"); len(got) != 1 || got[0].str("id") != idA {
		t.Errorf("feedback list --status resolved: %v", got)
	}

	// A spec update that moves a section relocates the anchors on it.
	p.js("spec", "update", spec, "--content", loginMoved)
	s = p.js("feedback", "show", idA)
	s.eq(13, "anchor", "line_number")
	s.eq("relocated", "anchor", "anchor_status")
	s.eq(map[string]any{"line_number": 8, "section_heading": "Tokens"}, "anchor", "original_location")
	s.eq("Refresh tokens last 30 days.", "location", "line_text")
	p.js("feedback", "show", idB).eq(7, "anchor", "line_number")

	// stale: nothing yet; then the anchored text goes, by hand.
	st := p.js("feedback", "stale")
	st.keys("feedback", "total", "truncated", "hint", "next_cursor")
	st.eq([]any{}, "feedback")
	bodyPath := filepath.Join(p.dir, "specs", spec+".md")
	fi, _ := os.Stat(bodyPath)
	os.WriteFile(bodyPath, []byte(strings.Replace(loginMoved, "Refresh tokens last 30 days.\n", "", 1)), 0o644)
	os.Chtimes(bodyPath, fi.ModTime().Add(time.Second), fi.ModTime().Add(time.Second))
	st = p.js("feedback", "stale")
	stale := st.list("feedback")
	if len(stale) != 1 {
		t.Fatalf("feedback stale after a hand edit: %s", st.raw)
	}
	stale[0].keys(compactFeedbackKeys...)
	stale[0].eq(idA, "id")
	stale[0].eq("stale", "anchor_status")
	s = p.js("feedback", "show", idA)
	s.null("location")
	s.eq(13, "anchor", "line_number") // the old fields are kept
	if b, _ := os.ReadFile(trackertest.RecordFile[tracker.Feedback](p.dir, idA)); !strings.Contains(string(b), `"anchor_status":"stale"`) {
		t.Errorf("the feedback's file does not record the stale anchor:\n%s", b)
	}

	// relocate by hand.
	rel := p.js("feedback", "relocate", idA, "--line", "12")
	checkFeedback(rel)
	rel.eq(12, "anchor", "line_number")
	rel.eq("relocated", "anchor", "anchor_status")
	rel.eq("Access tokens last 15 minutes.", "anchor", "text_snippet")
	rel.eq(map[string]any{"line_number": 8, "section_heading": "Tokens"}, "anchor", "original_location")
	p.js("feedback", "stale").eq([]any{}, "feedback")
	p.js("feedback", "show", idA).eq("Access tokens last 15 minutes.", "location", "line_text")
}

func TestTrackerFeedbackHuman(t *testing.T) {
	t.Parallel()
	p := newProj(t)
	issue := p.js("issue", "create", "Reviewer").str("id")
	spec := p.js("spec", "create", "Login", "--design", loginSpec).str("id")
	if out := p.human("feedback", "list"); !strings.Contains(out, "(none)") {
		t.Errorf("empty feedback list said %q", out)
	}
	out := p.human("feedback", "add", issue, spec, "--content", "Which lifetime?", "--text", "Refresh tokens")
	m := regexp.MustCompile(`Added feedback (sudocode-fb-[0-9a-z]+) on ` + spec + ` line 8`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("feedback add said %q", out)
	}
	id := m[1]
	if out := p.human("feedback", "list"); !strings.Contains(out, id) || !strings.Contains(out, "Which lifetime?") {
		t.Errorf("feedback list said %q", out)
	}
	if out := p.human("feedback", "show", id); !strings.Contains(out, "line 8: Refresh tokens last 30 days.") {
		t.Errorf("feedback show said %q", out)
	}
	if out := p.human("feedback", "acknowledge", id); !strings.Contains(out, "is acknowledged") {
		t.Errorf("feedback acknowledge said %q", out)
	}
	if out := p.human("feedback", "resolve", id, "--comment", "ok"); !strings.Contains(out, "is resolved") {
		t.Errorf("feedback resolve said %q", out)
	}
	if out := p.human("feedback", "wont-fix", id, "--reason", "no"); !strings.Contains(out, "is wont_fix") {
		t.Errorf("feedback wont-fix said %q", out)
	}
	if out := p.human("feedback", "stale"); !strings.Contains(out, "(none)") {
		t.Errorf("feedback stale said %q", out)
	}
	if out := p.human("feedback", "relocate", id, "--line", "7"); !strings.Contains(out, "now at line 7") {
		t.Errorf("feedback relocate said %q", out)
	}
	if out := p.human("spec", "show", spec); !strings.Contains(out, "feedback "+id) {
		t.Errorf("spec show said %q", out)
	}
	if out := p.human("issue", "show", issue); !strings.Contains(out, "feedback given") {
		t.Errorf("issue show said %q", out)
	}
	p.human("feedback")
}
