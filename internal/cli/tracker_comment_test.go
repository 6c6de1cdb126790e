package cli_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var commentIDRE = regexp.MustCompile(`^sudocode-c-[0-9a-z]{12}$`)

// TestIssueComment: `issue comment` from an argument, standard input and a
// file; `issue show` prints the comments and the history after the issue,
// and --json gives them as "comments" and "history", whose field names are
// pinned here.
func TestIssueComment(t *testing.T) {
	t.Parallel()
	p := newProj(t)
	id := p.js("issue", "create", "Login times out").str("id")
	other := p.js("issue", "create", "Session store").str("id")

	c := p.js("issue", "comment", id, "Reproduced: **5s**, not 30s.")
	c.keys(commentKeys...)
	c.eq(id, "issue_id")
	c.eq("alice", "author")
	c.eq("Reproduced: **5s**, not 30s.", "body")
	if cid := c.str("id"); !commentIDRE.MatchString(cid) {
		t.Errorf("comment id %q", cid)
	}
	if !c.time("created_at").Equal(c.time("updated_at")) {
		t.Errorf("a new comment's updated_at is not its created_at")
	}
	if out := p.okIn(p.root, "From stdin\n\n- a list\n", "issue", "comment", id, "-"); !strings.Contains(out, "Commented on "+id) {
		t.Errorf("comment from stdin said %q", out)
	}
	notes := filepath.Join(p.root, "notes.md")
	if err := os.WriteFile(notes, []byte("From a file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p.ok("issue", "comment", id, "--body-file", "notes.md")
	p.ok("issue", "update", id, "--status", "in_progress", "--assignee", "bob")
	p.ok("link", id, other, "--type", "depends-on")

	d := p.js("issue", "show", id)
	d.keys(issueDetailKeys...)
	comments := d.list("comments")
	if len(comments) != 3 {
		t.Fatalf("%d comments, want 3: %s", len(comments), d.raw)
	}
	for i, want := range []string{"Reproduced: **5s**, not 30s.", "From stdin\n\n- a list", "From a file"} {
		comments[i].keys(commentKeys...)
		comments[i].eq(want, "body")
	}
	history := d.list("history")
	if len(history) != 3 {
		t.Fatalf("%d history events, want 3: %s", len(history), d.raw)
	}
	for _, h := range history {
		h.keys(historyKeys...)
		h.eq("alice", "actor")
		h.null("task_id")
	}
	history[0].eq("status", "field")
	history[0].eq("open", "from")
	history[0].eq("in_progress", "to")
	history[1].eq("assignee", "field")
	history[1].null("from")
	history[1].eq("bob", "to")
	history[2].eq("link", "field")
	history[2].eq(id+" depends-on "+other, "to")
	if h := p.js("issue", "show", other).list("history"); len(h) != 1 { // the other end of the link
		t.Errorf("the link's other end has %d history events, want 1", len(h))
	}
	quiet := p.js("issue", "show", p.js("issue", "create", "Quiet").str("id"))
	quiet.eq([]any{}, "comments")
	quiet.eq([]any{}, "history")

	text := p.human("issue", "show", id)
	for _, want := range []string{"\ncomments:\n", "  alice · ", "    Reproduced: **5s**, not 30s.\n", "    - a list\n",
		"\nhistory:\n", "alice  status open → in_progress", "alice  assignee - → bob", "alice  linked: " + id + " waits for " + other, "[depends-on]\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("issue show lacks %q:\n%s", want, text)
		}
	}
	if strings.Index(text, "comments:") < strings.Index(text, "Login times out") {
		t.Errorf("the activity comes before the issue:\n%s", text)
	}
}

// TestIssueCommentRefusals: an unknown issue, an empty comment, none at
// all or two: clear errors, nothing written.
func TestIssueCommentRefusals(t *testing.T) {
	t.Parallel()
	p := newProj(t)
	id := p.js("issue", "create", "A").str("id")
	before := p.snapshot()
	for _, c := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"issue", "comment", "sudocode-zzzz", "hello"}, 3, "issue sudocode-zzzz not found"},
		{[]string{"issue", "comment", id, "  \n "}, 2, "a comment must not be empty"},
		{[]string{"issue", "comment", id}, 2, "no comment: give its TEXT, --body-file FILE, or -"},
		{[]string{"issue", "comment", id, "text", "--body-file", "x.md"}, 2, "not both"},
		{[]string{"issue", "comment", id, "--body-file", "missing.md"}, 2, "missing.md"},
		{[]string{"issue", "comment", id, strings.Repeat("x", 64<<10+1)}, 2, "too long"},
	} {
		r := p.run(c.args...)
		if r.code != c.code || !strings.Contains(r.stderr, c.says) {
			t.Errorf("%.80q: exit %d, stderr %q; want exit %d saying %q", c.args, r.code, r.stderr, c.code, c.says)
		}
	}
	if r := p.run("issue", "comment", "sudocode-zzzz", "hello", "--json"); r.code != 3 || !strings.Contains(r.stderr, `"code": "not_found"`) {
		t.Errorf("--json unknown issue: exit %d, stderr %q", r.code, r.stderr)
	}
	sameFiles(t, "refused comments", before, p.snapshot())

	help := p.ok("issue", "comment", "--help")
	for _, want := range []string{"markdown", "--body-file", "standard input", "history", `"comments"`} {
		if !strings.Contains(help, want) {
			t.Errorf("issue comment --help lacks %q:\n%s", want, help)
		}
	}
}

// TestGitMergeOfComments: two branches comment on one issue and change
// it (both append to its activity file); git, with the merge driver init
// registered, merges them without conflict, and the issue shows both
// branches' comments and history, once each.
func TestGitMergeOfComments(t *testing.T) {
	p, git := newGitProj(t)
	id := p.js("issue", "create", "Shared").str("id")
	p.ok("issue", "comment", id, "Base comment")
	git("add", "-A")
	git("commit", "-qm", "base")

	git("checkout", "-qb", "left")
	p.ok("issue", "comment", id, "From the left")
	p.ok("issue", "update", id, "--status", "in_progress")
	git("add", "-A")
	git("commit", "-qm", "left")

	git("checkout", "-q", "main")
	p.ok("issue", "comment", id, "From main")
	p.ok("issue", "update", id, "--assignee", "bob")
	git("add", "-A")
	git("commit", "-qm", "main")

	if out := git("merge", "-q", "--no-edit", "left"); strings.Contains(out, "CONFLICT") {
		t.Fatalf("merge conflicted:\n%s", out)
	}
	if st := git("status", "--porcelain", "--untracked-files=no"); st != "" {
		t.Fatalf("work tree not clean after merge:\n%s", st)
	}
	d := p.js("issue", "show", id)
	var bodies []string
	for _, c := range d.list("comments") {
		bodies = append(bodies, c.str("body"))
	}
	if len(bodies) != 3 || bodies[0] != "Base comment" || !strings.Contains(strings.Join(bodies, "|"), "From the left") ||
		!strings.Contains(strings.Join(bodies, "|"), "From main") {
		t.Errorf("comments after the merge: %q", bodies)
	}
	var fields []string
	for _, h := range d.list("history") {
		fields = append(fields, h.str("field"))
	}
	if strings.Join(fields, ",") != "status,assignee" && strings.Join(fields, ",") != "assignee,status" {
		t.Errorf("history after the merge: %q", fields)
	}
	d.eq("in_progress", "status")
	d.eq("bob", "assignee")
}
