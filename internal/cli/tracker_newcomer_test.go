package cli_test

import (
	"bytes"
	"context"
	"io"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/testkit"
)

// init run again says so; status prints ids as words, not a Go slice.
func TestInitAgainAndStatusText(t *testing.T) {
	p := newProj(t)
	if out := p.human("init"); !strings.HasPrefix(out, "Already initialised: ") {
		t.Errorf("second init said %q", out)
	}
	p.ok("issue", "create", "first")
	for _, args := range [][]string{{"status"}, {"status", "--verbose"}} {
		if out := p.human(args...); strings.ContainsAny(out, "[]") {
			t.Errorf("%v said %q", args, out)
		}
	}
	if out := p.human("status", "--verbose"); !strings.Contains(out, "Ready    1  sudocode-") {
		t.Errorf("status --verbose said %q", out)
	}
}

// stats and status say "blocked" for one thing only: what `blocked` lists
// (unfinished, and blocked by a link or marked blocked). The count of the
// status value is named as such, and ready is what `ready` lists.
func TestStatsBlockedIsOneRule(t *testing.T) {
	p := newProj(t)
	blocker := p.js("issue", "create", "blocker").str("id")
	waiter := p.js("issue", "create", "waiter").str("id")
	p.ok("issue", "create", "free")
	marked := p.js("issue", "create", "marked").str("id")
	done := p.js("issue", "create", "done").str("id")
	p.ok("link", waiter, blocker, "--type", "blocks")
	p.ok("issue", "update", marked, "--status", "blocked")
	p.ok("issue", "close", done)

	nBlocked := len(p.js("blocked").list("issues"))
	nReady := len(p.js("ready").list("issues"))
	if nBlocked != 2 || nReady != 2 {
		t.Fatalf("blocked %d, ready %d; want 2 and 2", nBlocked, nReady)
	}
	blockedN := regexp.MustCompile(`(\S+ )?[Bb]locked\s+(\d+)`)
	readyN := regexp.MustCompile(`[Rr]eady\s+(\d+)`)
	for _, cmd := range []string{"stats", "status"} {
		out := p.human(cmd)
		found := false
		for _, m := range blockedN.FindAllStringSubmatch(out, -1) {
			if m[1] == "marked " {
				if m[2] != "1" {
					t.Errorf("%s: %q, but one issue is marked blocked:\n%s", cmd, m[0], out)
				}
				continue
			}
			found = true
			if m[2] != strconv.Itoa(nBlocked) {
				t.Errorf("%s says %q, but `blocked` lists %d:\n%s", cmd, m[0], nBlocked, out)
			}
		}
		if !found {
			t.Errorf("%s gives no blocked count:\n%s", cmd, out)
		}
		for _, line := range strings.Split(out, "\n") {
			if !strings.HasPrefix(line, "Issues") && !strings.HasPrefix(line, "Ready") {
				continue // specs have their own ready count
			}
			for _, m := range readyN.FindAllStringSubmatch(line, -1) {
				if m[1] != strconv.Itoa(nReady) {
					t.Errorf("%s says %q, but `ready` lists %d:\n%s", cmd, m[0], nReady, out)
				}
			}
		}
	}
}

// issue list hides closed issues unless --all (or a --status) asks for
// them, as gh and bd do; the MCP tool list_issues lists every issue, as
// the tracker's requirement says ("List all issues with optional filters";
// docs/servers.md#tracker-tools).
func TestIssueListHidesClosed(t *testing.T) {
	p := newProj(t)
	open := p.js("issue", "create", "still open").str("id")
	closed := p.js("issue", "create", "finished").str("id")
	p.ok("issue", "close", closed)

	ids := func(j js) []string {
		var out []string
		for _, it := range j.list("issues") {
			out = append(out, it.str("id"))
		}
		return out
	}
	if got := ids(p.js("issue", "list")); len(got) != 1 || got[0] != open {
		t.Errorf("issue list = %v, want only the open %s", got, open)
	}
	if n := p.js("issue", "list").num("total"); n != 1 {
		t.Errorf("issue list total = %d, want 1", n)
	}
	if got := ids(p.js("issue", "list", "--all")); len(got) != 2 {
		t.Errorf("issue list --all = %v, want both", got)
	}
	if got := ids(p.js("issue", "list", "--status", "closed")); len(got) != 1 || got[0] != closed {
		t.Errorf("issue list --status closed = %v, want %s", got, closed)
	}
	if out := p.human("issue", "list"); strings.Contains(out, closed) || !strings.Contains(out, "--all") {
		t.Errorf("issue list text should hide %s and say how to see closed issues:\n%s", closed, out)
	}

	cs := trackerSession(t, p.root)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "list_issues", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("list_issues: %v %+v", err, res)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(text, closed) || !strings.Contains(text, open) {
		t.Errorf("list_issues should list every issue: %s", text)
	}
}

// A mistyped command or subcommand is a usage error that suggests the
// command meant.
func TestDidYouMean(t *testing.T) {
	p := newProj(t)
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"issue", "lst"}, []string{"list"}},
		{[]string{"isue", "list"}, []string{"issue"}},
		{[]string{"stat"}, []string{"stats", "status"}},
		{[]string{"feedback", "resolv", "x"}, []string{"resolve"}},
		{[]string{"spec", "shwo", "x"}, []string{"show"}},
	} {
		r := p.run(c.args...)
		if r.code != 2 || !strings.Contains(r.stderr, "hint: did you mean ") {
			t.Errorf("sudocode %s: exit %d, stderr %q; want 2 and a suggestion", strings.Join(c.args, " "), r.code, r.stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(r.stderr, strconv.Quote(w)) {
				t.Errorf("sudocode %s: stderr %q does not suggest %s", strings.Join(c.args, " "), r.stderr, w)
			}
		}
	}
}

// Feedback cannot be anchored on a blank line: its empty snippet would
// never be found again (docs/servers.md#tracker-files), so the anchor would go stale
// at the first edit. The CLI and MCP refuse it alike, naming the nearest
// lines with text; relocating onto a blank line is refused the same way.
func TestFeedbackOnABlankLine(t *testing.T) {
	p := newProj(t)
	issue := p.js("issue", "create", "reader").str("id")
	spec := p.js("spec", "create", "Auth", "--design", "# Auth\n\nTokens expire.\n\n\nRenewal is automatic.\n").str("id")
	want := "line 4 is blank: anchor feedback on a line with text (the nearest are line 3 and line 6)"

	r := p.run("feedback", "add", issue, spec, "--content", "why?", "--line", "4")
	if r.code != 2 || !strings.Contains(r.stderr, want) {
		t.Errorf("feedback add on a blank line: exit %d, stderr %q; want 2 and %q", r.code, r.stderr, want)
	}
	cs := trackerSession(t, p.root)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "add_feedback",
		Arguments: map[string]any{"issue_id": issue, "spec_id": spec, "content": "why?", "line": 4}})
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, want) {
		t.Errorf("add_feedback on a blank line: %v %+v; want an error saying %q", err, res, want)
	}
	fb := p.js("feedback", "add", issue, spec, "--content", "why?", "--line", "3").str("id")
	if r := p.run("feedback", "relocate", fb, "--line", "5"); r.code != 2 || !strings.Contains(r.stderr, "line 5 is blank") {
		t.Errorf("relocate onto a blank line: exit %d, stderr %q", r.code, r.stderr)
	}
	if n := len(p.js("feedback", "list").list("feedback")); n != 1 {
		t.Errorf("%d feedback stored, want 1", n)
	}
}

// On a terminal, the CLI prints no markdown markup: the rulesets list,
// whose MCP text bolds each name, comes plain (piped, it stays the
// server's text, as TestRulesetsCommandsMatchTheServer pins).
func TestNoMarkdownOnATerminal(t *testing.T) {
	l := newLibrary(t)
	l.ok("", "put", pyName, "-d", pyDescription, "-t", "python,style", "-f", writeFile(t, pyMarkdown))
	for _, args := range [][]string{{"list"}, {"search", "*python*"}} {
		out := onTerminal(t, l.env, append(append([]string{"rulesets"}, args...), "--store", l.store)...)
		if strings.Contains(out, "**") || !strings.Contains(out, pyName) {
			t.Errorf("sudocode rulesets %s on a terminal printed %q", strings.Join(args, " "), out)
		}
	}
}

// onTerminal runs sudocode with a pseudo-terminal as its standard output
// and returns what it printed there.
func onTerminal(t *testing.T, env []string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(30*time.Second))
	defer cancel()
	cmd := exec.CommandContext(ctx, sudocodeBin, args...)
	cmd.Env = env
	tty, err := pty.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	var out bytes.Buffer
	io.Copy(&out, tty) // ends with EIO when the command exits
	if err := cmd.Wait(); err != nil {
		t.Fatalf("sudocode %s: %v\n%s", strings.Join(args, " "), err, out.String())
	}
	return strings.ReplaceAll(out.String(), "\r\n", "\n")
}
