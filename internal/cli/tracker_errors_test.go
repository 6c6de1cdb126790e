package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/trackertest"
)

// TestTrackerDiscovery: .sudocode is found from a subdirectory, or through
// SUDOCODE_WORKING_DIR or SUDOCODE_DB; without one, commands exit 3 and
// say to run sudocode init.
func TestTrackerDiscovery(t *testing.T) {
	t.Parallel()
	p := newProj(t)
	id := p.js("issue", "create", "Found").str("id")
	sub := filepath.Join(p.root, "src", "pkg", "deep")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if out := p.okIn(sub, "", "issue", "show", id, "--json"); !strings.Contains(out, `"Found"`) {
		t.Errorf("issue show from a subdirectory: %q", out)
	}
	// A change from a subdirectory lands in the project's .sudocode.
	p.okIn(sub, "", "issue", "create", "From below")
	if _, err := os.Stat(filepath.Join(sub, ".sudocode")); !os.IsNotExist(err) {
		t.Errorf("a command in a subdirectory made its own .sudocode")
	}
	if n := p.js("issue", "list").num("total"); n != 2 {
		t.Errorf("%d issues, want 2", n)
	}

	elsewhere := t.TempDir()
	for _, env := range [][]string{
		{"SUDOCODE_WORKING_DIR=" + p.root},
		{"SUDOCODE_WORKING_DIR=" + sub},
		{"SUDOCODE_DB=" + p.dir},
		{"SUDOCODE_DB=" + filepath.Join(p.dir, "cache.db")},
	} {
		r := runAt(t, elsewhere, append(append([]string{}, p.env...), env...), "", "issue", "list", "--json")
		if r.code != 0 || !strings.Contains(r.stdout, id) {
			t.Errorf("%v from another directory: exit %d, stdout %q, stderr %q", env, r.code, r.stdout, r.stderr)
		}
	}
	// SUDOCODE_WORKING_DIR also tells init where to go.
	other := t.TempDir()
	r := runAt(t, elsewhere, append(append([]string{}, p.env...), "SUDOCODE_WORKING_DIR="+other), "", "init", "--json")
	if r.code != 0 || !strings.Contains(r.stdout, filepath.Join(other, ".sudocode")) {
		t.Errorf("init with SUDOCODE_WORKING_DIR: exit %d, stdout %q", r.code, r.stdout)
	}
	if _, err := os.Stat(filepath.Join(elsewhere, ".sudocode")); !os.IsNotExist(err) {
		t.Errorf("init with SUDOCODE_WORKING_DIR initialised the working directory")
	}

	// No tracker anywhere: exit 3, and the way out.
	none := newBareProj(t)
	for _, args := range [][]string{{"issue", "list"}, {"ready"}, {"issue", "create", "x"}, {"stats"}} {
		r := none.run(args...)
		if r.code != 3 || !strings.Contains(r.stderr, "no .sudocode found") || !strings.Contains(r.stderr, "sudocode init") || r.stdout != "" {
			t.Errorf("%v without a tracker: exit %d, stdout %q, stderr %q", args, r.code, r.stdout, r.stderr)
		}
		r = none.run(append(args, "--json")...)
		if r.code != 3 || r.stdout != "" {
			t.Errorf("%v --json without a tracker: exit %d, stdout %q", args, r.code, r.stdout)
		}
		e := js{t, json.RawMessage(r.stderr), "error"}
		e.keys("error")
		e.get("error").keys(errorKeys...)
		e.eq("not_found", "error", "code")
		if !strings.Contains(e.str("error", "message"), "no .sudocode found") || !strings.Contains(e.str("error", "hint"), "sudocode init") {
			t.Errorf("%v --json without a tracker: %s", args, r.stderr)
		}
	}
	for _, env := range []string{"SUDOCODE_DB=" + filepath.Join(none.root, "nope", "cache.db"), "SUDOCODE_WORKING_DIR=" + none.root} {
		r := runAt(t, p.root, append(append([]string{}, p.env...), env), "", "issue", "list")
		if r.code != 3 || !strings.Contains(r.stderr, "sudocode init") {
			t.Errorf("%s pointing at no tracker: exit %d, stderr %q", env, r.code, r.stderr)
		}
	}
	if _, err := os.Stat(none.dir); !os.IsNotExist(err) {
		t.Errorf("commands without a tracker created %s", none.dir)
	}
}

// TestTrackerActor: SUDOCODE_ACTOR is recorded as created_by, else $USER.
func TestTrackerActor(t *testing.T) {
	t.Parallel()
	p := newProj(t, "SUDOCODE_ACTOR=agent-7")
	i := p.js("issue", "create", "By the agent")
	i.eq("agent-7", "created_by")
	s := p.js("spec", "create", "Spec by the agent")
	s.eq("agent-7", "created_by")
	p.js("link", i.str("id"), s.str("id"), "--type", "implements")
	p.js("issue", "show", i.str("id")).eq("agent-7", "relationships", "outgoing", "0", "created_by")
	if b, _ := os.ReadFile(trackertest.RecordFile[tracker.IssueRecord](p.dir, i.str("id"))); !strings.Contains(string(b), `"created_by":"agent-7"`) {
		t.Errorf("the issue's file does not record the actor:\n%s", b)
	}
	q := newBareProj(t)
	q.env = childEnv(t, "USER=someone")
	q.ok("init")
	q.js("issue", "create", "By the user").eq("someone", "created_by")
}

// TestTrackerBadInput: bad input exits non-zero with a clear message (as
// JSON on stderr with --json) and changes no file.
func TestTrackerBadInput(t *testing.T) {
	t.Parallel()
	p := newProj(t)
	issue := p.js("issue", "create", "Issue").str("id")
	issue2 := p.js("issue", "create", "Issue 2").str("id")
	spec := p.js("spec", "create", "Spec", "--design", loginSpec).str("id")
	p.js("link", issue, issue2, "--type", "blocks")
	fb := p.js("feedback", "add", issue, spec, "-c", "note", "--line", "3").str("id")
	before := p.snapshot()

	tests := []struct {
		args []string
		code int
		err  string // code of the JSON error
		msg  string
	}{
		{[]string{"issue", "show", "sudocode-zzzz"}, 3, "not_found", "issue sudocode-zzzz not found"},
		{[]string{"issue", "update", "sudocode-zzzz", "-p", "1"}, 3, "not_found", "issue sudocode-zzzz not found"},
		{[]string{"issue", "show", spec}, 3, "not_found", "not found"},
		{[]string{"issue", "create", "X", "--type", "nonsense"}, 2, "invalid_argument", `invalid type "nonsense": must be one of bug, feature, task, epic, chore`},
		{[]string{"issue", "create", "X", "--priority", "7"}, 2, "invalid_argument", "invalid priority 7: must be 0 (highest) to 4 (lowest)"},
		{[]string{"issue", "create", "X", "--priority", "-1"}, 2, "invalid_argument", "invalid priority -1"},
		{[]string{"issue", "create", "X", "--priority", "high"}, 2, "invalid_argument", "invalid argument"},
		{[]string{"issue", "create", ""}, 2, "invalid_argument", "title must not be empty"},
		{[]string{"issue", "create", "   "}, 2, "invalid_argument", "title must not be empty"},
		{[]string{"issue", "create", strings.Repeat("x", 501)}, 2, "invalid_argument", "title is too long"},
		{[]string{"issue", "create", "X", "--estimate", "-5"}, 2, "invalid_argument", "invalid estimate -5"},
		{[]string{"issue", "create", "X", "--parent", "sudocode-zzzz"}, 3, "not_found", "parent sudocode-zzzz not found"},
		{[]string{"issue", "create"}, 2, "invalid_argument", "accepts 1 arg"},
		{[]string{"issue", "update", issue, "--status", "done"}, 2, "invalid_argument", `invalid status "done"`},
		{[]string{"issue", "update", issue, "--title", ""}, 2, "invalid_argument", "title must not be empty"},
		{[]string{"issue", "update", issue, "--priority", "5"}, 2, "invalid_argument", "invalid priority 5"},
		{[]string{"issue", "list", "--status", "nonsense"}, 2, "invalid_argument", `invalid status "nonsense"`},
		{[]string{"issue", "list", "--type", "story"}, 2, "invalid_argument", `invalid type "story"`},
		{[]string{"issue", "close"}, 2, "invalid_argument", "give at least one issue id"},
		{[]string{"issue", "frobnicate"}, 2, "invalid_argument", "unknown command"},
		{[]string{"spec", "show", "sudocode-spec-zzzz"}, 3, "not_found", "spec sudocode-spec-zzzz not found"},
		{[]string{"spec", "create", "X", "--type", "nonsense"}, 2, "invalid_argument", `invalid type "nonsense"`},
		{[]string{"spec", "create", "X", "--priority", "9"}, 2, "invalid_argument", "invalid priority 9"},
		{[]string{"spec", "create", "X", "--parent", issue}, 3, "not_found", "parent " + issue + " not found"},
		{[]string{"spec", "create", "X", "--file-path", "issues.jsonl"}, 2, "invalid_argument", "it is not a markdown file"},
		{[]string{"spec", "create", "X", "--file-path", "../../outside.md"}, 2, "invalid_argument", "invalid file path"},
		{[]string{"spec", "create", "X", "--file-path", "specs/" + spec + ".md"}, 4, "conflict", "already the body of " + spec},
		{[]string{"spec", "create", "X", "--design-file", "/nonexistent/design.md"}, 2, "invalid_argument", "no such file"},
		{[]string{"spec", "update", spec, "--status", "done"}, 2, "invalid_argument", `invalid status "done"`},
		{[]string{"spec", "update", "sudocode-spec-zzzz", "--status", "review"}, 3, "not_found", "not found"},
		{[]string{"link", issue, "sudocode-zzzz"}, 3, "not_found", "sudocode-zzzz not found"},
		{[]string{"link", "sudocode-zzzz", issue}, 3, "not_found", "sudocode-zzzz not found"},
		{[]string{"link", issue, issue}, 2, "invalid_argument", "cannot link " + issue + " to itself"},
		{[]string{"link", issue, issue2, "--type", "nonsense"}, 2, "invalid_argument", `invalid relationship type "nonsense"`},
		{[]string{"link", issue2, issue, "--type", "blocks"}, 4, "conflict", "would make a cycle"},
		{[]string{"link", issue2, issue, "--type", "depends-on"}, 4, "conflict", "would make a cycle"},
		{[]string{"unlink", issue, issue2, "--type", "related"}, 3, "not_found", "no related link"},
		{[]string{"feedback", "add", issue, spec, "-c", "x", "--line", "13"}, 2, "invalid_argument", "line 13 is past the end of the spec (12 lines)"},
		{[]string{"feedback", "add", issue, spec, "-c", "x", "--line", "0"}, 2, "invalid_argument", "lines count from 1"},
		{[]string{"feedback", "add", issue, spec, "-c", "x", "--text", "OAuth"}, 2, "invalid_argument", `text "OAuth" is not in the spec`},
		{[]string{"feedback", "add", issue, spec, "-c", "x", "--line", "3", "--text", "Intro"}, 2, "invalid_argument", "give exactly one anchor"},
		{[]string{"feedback", "add", issue, spec, "-c", "x"}, 2, "invalid_argument", "give exactly one anchor"},
		{[]string{"feedback", "add", issue, spec, "--line", "3"}, 2, "invalid_argument", "content must not be empty"},
		{[]string{"feedback", "add", issue, spec, "-c", "x", "--line", "3", "--type", "rant"}, 2, "invalid_argument", `invalid feedback type "rant"`},
		{[]string{"feedback", "add", "sudocode-zzzz", spec, "-c", "x", "--line", "3"}, 3, "not_found", "issue sudocode-zzzz not found"},
		{[]string{"feedback", "add", issue, "sudocode-spec-zzzz", "-c", "x", "--line", "3"}, 3, "not_found", "spec sudocode-spec-zzzz not found"},
		{[]string{"feedback", "show", "sudocode-fb-zzzz"}, 3, "not_found", "feedback sudocode-fb-zzzz not found"},
		{[]string{"feedback", "acknowledge", "sudocode-fb-zzzz"}, 3, "not_found", "feedback sudocode-fb-zzzz not found"},
		{[]string{"feedback", "resolve", "sudocode-fb-zzzz"}, 3, "not_found", "not found"},
		{[]string{"feedback", "wont-fix", "sudocode-fb-zzzz"}, 3, "not_found", "not found"},
		{[]string{"feedback", "relocate", fb}, 2, "invalid_argument", "--line is required"},
		{[]string{"feedback", "relocate", fb, "--line", "99"}, 2, "invalid_argument", "line 99 is past the end"},
		{[]string{"feedback", "relocate", "sudocode-fb-zzzz", "--line", "3"}, 3, "not_found", "not found"},
		{[]string{"feedback", "list", "--status", "closed"}, 2, "invalid_argument", `invalid status "closed"`},
		{[]string{"ready", "--priority", "9"}, 2, "invalid_argument", "invalid priority 9"},
		{[]string{"ready", "extra"}, 2, "invalid_argument", "accepts 0 arg"},
		{[]string{"stats", "--nonsense"}, 2, "invalid_argument", "unknown flag"},
	}
	for _, tc := range tests {
		what := strings.Join(tc.args, " ")
		r := p.run(tc.args...)
		if r.code != tc.code {
			t.Errorf("%s: exit %d, want %d (stderr %q)", what, r.code, tc.code, r.stderr)
		}
		if !strings.HasPrefix(r.stderr, "error: ") || !strings.Contains(r.stderr, tc.msg) {
			t.Errorf("%s: stderr %q, want an error saying %q", what, r.stderr, tc.msg)
		}
		if r.stdout != "" {
			t.Errorf("%s failed but printed %q", what, r.stdout)
		}
		r = p.run(append(tc.args, "--json")...)
		if r.code != tc.code || r.stdout != "" {
			t.Errorf("%s --json: exit %d, stdout %q", what, r.code, r.stdout)
		}
		var e struct {
			Error map[string]any `json:"error"`
		}
		if err := json.Unmarshal([]byte(r.stderr), &e); err != nil {
			t.Errorf("%s --json: stderr is not JSON: %q", what, r.stderr)
			continue
		}
		ej := js{t, json.RawMessage(r.stderr), what + " --json"}
		ej.keys("error")
		ej.get("error").keys(errorKeys...)
		if e.Error["code"] != tc.err || !strings.Contains(e.Error["message"].(string), tc.msg) {
			t.Errorf("%s --json: error %v, want code %s and a message saying %q", what, e.Error, tc.err, tc.msg)
		}
	}
	sameFiles(t, "refused commands", before, p.snapshot())
	if t.Failed() {
		return
	}
	// And the tracker still works.
	p.js("issue", "create", "After")
}
