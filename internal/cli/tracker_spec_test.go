package cli_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var specIDRE = regexp.MustCompile(`^sudocode-spec-[0-9a-z]{4}$`)

const loginSpec = `# Login

Intro text.

## Tokens

Access tokens last 15 minutes.
Refresh tokens last 30 days.

## Errors

Return 401 on expiry.
`

func TestTrackerSpecCommands(t *testing.T) {
	t.Parallel()
	p := newProj(t)

	empty := p.js("spec", "list")
	empty.keys("specs", "total", "truncated", "hint", "next_cursor")
	if !strings.Contains(string(empty.raw), `"specs": []`) {
		t.Errorf("empty spec list: %s", empty.raw)
	}
	empty.null("hint")

	// create with the defaults.
	a := p.js("spec", "create", "Login flow")
	checkSpec(a)
	idA := a.newID(specIDRE)
	a.eq("Login flow", "title")
	a.eq("feature", "type")
	a.eq("draft", "status")
	a.eq(2, "priority")
	a.eq("specs/"+idA+".md", "file_path")
	a.eq([]string{}, "tags")
	a.eq("alice", "created_by")
	a.null("description", "parent_id")
	if b, err := os.ReadFile(filepath.Join(p.dir, "specs", idA+".md")); err != nil || len(b) != 0 {
		t.Errorf("the body of a spec without design: %q, %v", b, err)
	}

	// create with every option; the body from --design, a file, or stdin.
	b := p.js("spec", "create", "Tokens", "--type", "api", "--priority", "1", "-d", "How tokens work",
		"--design", loginSpec, "--tags", "auth,api", "--parent", idA)
	checkSpec(b)
	idB := b.str("id")
	b.eq("api", "type")
	b.eq(1, "priority")
	b.eq("How tokens work", "description")
	b.eq([]string{"api", "auth"}, "tags")
	b.eq(idA, "parent_id")
	if got, _ := os.ReadFile(filepath.Join(p.dir, "specs", idB+".md")); string(got) != loginSpec {
		t.Errorf("spec body = %q", got)
	}
	design := filepath.Join(t.TempDir(), "d.md")
	os.WriteFile(design, []byte("# From a file\n"), 0o644)
	c := p.js("spec", "create", "From a file", "--design-file", design, "--file-path", "design/file.md", "-t", "database")
	c.eq("design/file.md", "file_path")
	if got, _ := os.ReadFile(filepath.Join(p.dir, "design", "file.md")); string(got) != "# From a file\n" {
		t.Errorf("body from --design-file = %q", got)
	}
	d := js{t, []byte(p.okIn(p.root, "# From stdin\n", "spec", "create", "From stdin", "--design-file", "-", "-t", "research", "--json")), "spec create --design-file -"}
	idD := d.str("id")
	if got, _ := os.ReadFile(filepath.Join(p.dir, "specs", idD+".md")); string(got) != "# From stdin\n" {
		t.Errorf("body from stdin = %q", got)
	}

	// list: compact, highest priority then oldest; filters.
	l := p.js("spec", "list")
	items := l.list("specs")
	if len(items) != 4 {
		t.Fatalf("spec list: %s", l.raw)
	}
	for _, it := range items {
		it.keys(compactKeys...)
	}
	items[0].eq(idB, "id")
	items[0].eq("How tokens work", "description")
	items[1].eq(idA, "id")
	items[1].eq("", "description")
	l.eq(4, "total")
	if got := p.js("spec", "list", "--type", "api").list("specs"); len(got) != 1 || got[0].str("id") != idB {
		t.Errorf("spec list --type api: %v", got)
	}
	if got := p.js("spec", "list", "--status", "review").list("specs"); len(got) != 0 {
		t.Errorf("spec list --status review: %v", got)
	}
	if got := p.js("spec", "list", "--priority", "1").list("specs"); len(got) != 1 {
		t.Errorf("spec list --priority 1: %v", got)
	}
	cut := p.js("spec", "list", "-n", "1")
	cut.eq(true, "truncated")
	if len(cut.list("specs")) != 1 || cut.str("hint") == "" {
		t.Errorf("spec list -n 1: %s", cut.raw)
	}

	// show: the spec, its markdown, links both ways, feedback received.
	sb := p.js("spec", "show", idB)
	sb.keys(specDetailKeys...)
	sb.eq(loginSpec, "content")
	sb.get("relationships").keys("outgoing", "incoming")
	in := sb.list("relationships", "incoming")
	if len(in) != 1 {
		t.Fatalf("B's incoming links: %s", sb.get("relationships").raw)
	}
	checkRel(in[0])
	in[0].eq(idA, "from")
	in[0].eq("spec", "from_type")
	in[0].eq("parent-child", "type")
	sb.eq([]any{}, "relationships", "outgoing")
	sb.eq([]any{}, "feedback")
	issue := p.js("issue", "create", "Reviewer").str("id")
	p.js("feedback", "add", issue, idB, "--content", "Which lifetime?", "--text", "Refresh tokens")
	p.js("link", issue, idB, "--type", "implements")
	sb = p.js("spec", "show", idB)
	fb := sb.list("feedback")
	if len(fb) != 1 {
		t.Fatalf("B's feedback: %s", sb.get("feedback").raw)
	}
	checkFeedback(fb[0])
	if in := sb.list("relationships", "incoming"); len(in) != 2 {
		t.Errorf("B's incoming links: %s", sb.get("relationships").raw)
	}

	// update: the given fields; --content replaces the body.
	u := p.js("spec", "update", idA, "--status", "review", "--title", "Login", "--type", "architecture",
		"--priority", "0", "-d", "The whole flow", "--tags", "x", "--content", "# Login\n\nNew body.\n")
	checkSpec(u)
	u.eq("review", "status")
	u.eq("Login", "title")
	u.eq("architecture", "type")
	u.eq(0, "priority")
	u.eq("The whole flow", "description")
	u.eq([]string{"x"}, "tags")
	u.eq(a.str("created_at"), "created_at")
	if !u.time("updated_at").After(u.time("created_at")) {
		t.Errorf("updated_at %s not after created_at %s", u.str("updated_at"), u.str("created_at"))
	}
	if got, _ := os.ReadFile(filepath.Join(p.dir, "specs", idA+".md")); string(got) != "# Login\n\nNew body.\n" {
		t.Errorf("body after update = %q", got)
	}
	p.okIn(p.root, "# Piped\n", "spec", "update", idA, "--content-file", "-", "--json")
	p.js("spec", "show", idA).eq("# Piped\n", "content")
	u = p.js("spec", "update", idA, "-d", "")
	u.null("description")
	u.eq("Login", "title")
}

func TestTrackerSpecHuman(t *testing.T) {
	t.Parallel()
	p := newProj(t)
	if out := p.human("spec", "list"); !strings.Contains(out, "(none)") {
		t.Errorf("empty spec list said %q", out)
	}
	out := p.human("spec", "create", "Login flow", "--design", loginSpec)
	m := regexp.MustCompile(`Created spec (sudocode-spec-[0-9a-z]+): Login flow \(\.sudocode/specs/sudocode-spec-[0-9a-z]+\.md\)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("spec create said %q", out)
	}
	id := m[1]
	if out := p.human("spec", "list"); !strings.Contains(out, id) || !strings.Contains(out, "1 total") {
		t.Errorf("spec list said %q", out)
	}
	if out := p.human("spec", "show", id); !strings.Contains(out, "Login flow") || !strings.Contains(out, "Refresh tokens last 30 days.") {
		t.Errorf("spec show said %q", out)
	}
	if out := p.human("spec", "update", id, "--status", "approved"); !strings.Contains(out, "Updated spec "+id+" [approved]") {
		t.Errorf("spec update said %q", out)
	}
	p.human("spec")
}
