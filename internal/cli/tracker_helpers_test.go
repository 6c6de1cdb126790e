package cli_test

// Helpers of the tracker's tests: a project directory with a .sudocode
// tracker, sudocode run in it (in-process, or the built binary where a
// test needs a process), and checks of the JSON it prints.

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/testkit"
	"github.com/sudocode/sudocode/internal/tracker/store"
	"github.com/sudocode/sudocode/internal/tracker/trackertest"
)

// proj is a project directory and the environment its commands run in.
type proj struct {
	t    *testing.T
	root string // the project; commands run here unless told otherwise
	dir  string // root/.sudocode
	env  []string
	bin  bool // run the built binary, not cli.Main
}

// newProj initialises a tracker in a new directory. Commands run as actor
// alice (SUDOCODE_ACTOR) with USER tester.
func newProj(t *testing.T, extraEnv ...string) *proj {
	t.Helper()
	p := newBareProj(t, extraEnv...)
	p.ok("init")
	return p
}

// newBareProj is a project directory without a tracker.
func newBareProj(t *testing.T, extraEnv ...string) *proj {
	t.Helper()
	root := t.TempDir()
	env := childEnv(t, append([]string{"SUDOCODE_ACTOR=alice", "USER=tester"}, extraEnv...)...)
	return &proj{t: t, root: root, dir: filepath.Join(root, ".sudocode"), env: env}
}

// runAt runs sudocode in-process in dir with env, feeding it stdin.
func runAt(t *testing.T, dir string, env []string, stdin string, args ...string) result {
	t.Helper()
	return runMain(t, dir, env, stdin, args...)
}

// runBinAt runs the built sudocode binary in dir with env, feeding it
// stdin.
func runBinAt(t *testing.T, dir string, env []string, stdin string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(60*time.Second))
	defer cancel()
	cmd := exec.CommandContext(ctx, sudocodeBin, args...)
	cmd.Dir, cmd.Env = dir, env
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := result{stdout: stdout.String(), stderr: stderr.String()}
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok || ctx.Err() != nil {
			t.Fatalf("sudocode %s: %v (stderr %q)", strings.Join(args, " "), err, r.stderr)
		}
		r.code = ee.ExitCode()
	}
	return r
}

func (p *proj) run(args ...string) result {
	p.t.Helper()
	return p.runIn(p.root, "", args...)
}

// runIn runs a command in dir, in-process or through the binary as p's
// commands run.
func (p *proj) runIn(dir, stdin string, args ...string) result {
	p.t.Helper()
	if p.bin {
		return runBinAt(p.t, dir, p.env, stdin, args...)
	}
	return runAt(p.t, dir, p.env, stdin, args...)
}

// ok runs a command that must succeed without a word on stderr.
func (p *proj) ok(args ...string) string {
	p.t.Helper()
	return p.okIn(p.root, "", args...)
}

func (p *proj) okIn(dir, stdin string, args ...string) string {
	p.t.Helper()
	r := p.runIn(dir, stdin, args...)
	if r.code != 0 {
		p.t.Fatalf("sudocode %s: exit %d\nstdout %q\nstderr %q", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	if r.stderr != "" {
		p.t.Errorf("sudocode %s wrote to stderr: %q", strings.Join(args, " "), r.stderr)
	}
	return r.stdout
}

// human runs a command without --json: it must succeed and say something.
func (p *proj) human(args ...string) string {
	p.t.Helper()
	out := p.ok(args...)
	if strings.TrimSpace(out) == "" {
		p.t.Errorf("sudocode %s printed nothing", strings.Join(args, " "))
	}
	if json.Valid([]byte(out)) {
		p.t.Errorf("sudocode %s without --json printed JSON: %s", strings.Join(args, " "), out)
	}
	return out
}

// js runs a command with --json that must succeed, and returns its output.
func (p *proj) js(args ...string) js {
	p.t.Helper()
	out := p.ok(append(args, "--json")...)
	if !json.Valid([]byte(out)) {
		p.t.Fatalf("sudocode %s --json: not JSON: %q", strings.Join(args, " "), out)
	}
	return js{p.t, json.RawMessage(out), strings.Join(args, " ")}
}

// js is a JSON value with the command that printed it, for messages.
type js struct {
	t    *testing.T
	raw  json.RawMessage
	what string
}

// get returns the value at a path of object keys and array indexes
// ("issues", "0", "id").
func (j js) get(path ...string) js {
	j.t.Helper()
	cur := j.raw
	for _, k := range path {
		switch {
		case len(cur) > 0 && cur[0] == '{':
			var m map[string]json.RawMessage
			json.Unmarshal(cur, &m)
			v, ok := m[k]
			if !ok {
				j.t.Fatalf("%s: no key %q in %s", j.what, k, cur)
			}
			cur = v
		case len(cur) > 0 && cur[0] == '[':
			var a []json.RawMessage
			json.Unmarshal(cur, &a)
			i := -1
			for n := range a {
				if k == itoa(n) {
					i = n
				}
			}
			if i < 0 {
				j.t.Fatalf("%s: no index %s in %s", j.what, k, cur)
			}
			cur = a[i]
		default:
			j.t.Fatalf("%s: cannot take %q of %s", j.what, k, cur)
		}
	}
	return js{j.t, cur, j.what + " ." + strings.Join(path, ".")}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// str returns a string value.
func (j js) str(path ...string) string {
	j.t.Helper()
	var s string
	v := j.get(path...)
	if err := json.Unmarshal(v.raw, &s); err != nil || v.raw[0] != '"' {
		j.t.Fatalf("%s: %s is not a string", v.what, v.raw)
	}
	return s
}

// num returns a number value.
func (j js) num(path ...string) int {
	j.t.Helper()
	var n int
	v := j.get(path...)
	if err := json.Unmarshal(v.raw, &n); err != nil {
		j.t.Fatalf("%s: %s is not an integer", v.what, v.raw)
	}
	return n
}

// list returns the elements of an array value (never null).
func (j js) list(path ...string) []js {
	j.t.Helper()
	v := j.get(path...)
	var a []json.RawMessage
	if string(v.raw) == "null" || json.Unmarshal(v.raw, &a) != nil || v.raw[0] != '[' {
		j.t.Fatalf("%s: %s is not a list", v.what, v.raw)
	}
	out := make([]js, len(a))
	for i, r := range a {
		out[i] = js{j.t, r, v.what + "." + itoa(i)}
	}
	return out
}

// eq checks the value at path is want, compared as JSON.
func (j js) eq(want any, path ...string) {
	j.t.Helper()
	v := j.get(path...)
	var got, w any
	json.Unmarshal(v.raw, &got)
	wraw, _ := json.Marshal(want)
	json.Unmarshal(wraw, &w)
	if !reflect.DeepEqual(got, w) {
		j.t.Errorf("%s = %s, want %s", v.what, v.raw, wraw)
	}
}

// null checks each key of an object is present and null.
func (j js) null(keys ...string) {
	j.t.Helper()
	for _, k := range keys {
		if v := j.get(k); string(v.raw) != "null" {
			j.t.Errorf("%s = %s, want null", v.what, v.raw)
		}
	}
}

// keys checks an object's keys, in order.
func (j js) keys(want ...string) {
	j.t.Helper()
	if got := objKeys(j.t, j.raw); !reflect.DeepEqual(got, want) {
		j.t.Errorf("%s: keys\n %q\nwant\n %q", j.what, got, want)
	}
}

// objKeys returns the keys of a JSON object in their order.
func objKeys(t *testing.T, raw []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		t.Fatalf("not an object: %s", raw)
	}
	keys := []string{}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// time checks a timestamp is RFC 3339 in UTC and returns it.
func (j js) time(path ...string) time.Time {
	j.t.Helper()
	s := j.str(path...)
	tm, err := time.Parse(time.RFC3339Nano, s)
	if err != nil || !strings.HasSuffix(s, "Z") {
		j.t.Errorf("%s = %q: not an RFC 3339 UTC time (%v)", j.get(path...).what, s, err)
	}
	return tm
}

// The tracker's JSON shapes (docs/servers.md#tracker), key for key, in order.
var (
	issueKeys = []string{"id", "uuid", "title", "description", "status", "type", "priority", "assignee", "estimate",
		"parent_id", "tags", "created_at", "updated_at", "closed_at", "close_reason", "created_by"}
	specKeys = []string{"id", "uuid", "title", "description", "type", "status", "priority", "file_path", "parent_id",
		"tags", "created_at", "updated_at", "created_by"}
	relKeys      = []string{"from", "from_type", "to", "to_type", "type", "created_at", "created_by"}
	feedbackKeys = []string{"id", "issue_id", "spec_id", "type", "status", "content", "agent", "anchor", "resolution",
		"created_at", "updated_at"}
	anchorKeys = []string{"section_heading", "section_level", "line_number", "line_offset", "text_snippet",
		"context_before", "context_after", "content_hash", "anchor_status", "last_verified_at", "original_location"}
	locationKeys         = []string{"line_number", "section_heading"}
	feedbackLocationKeys = []string{"line_number", "line_text", "section_heading"}
	issueDetailKeys      = append(append([]string{}, issueKeys...), "relationships", "blocked_by", "feedback", "comments", "history")
	commentKeys          = []string{"id", "issue_id", "author", "body", "created_at", "updated_at"}
	historyKeys          = []string{"id", "issue_id", "at", "actor", "field", "from", "to", "task_id"}
	specDetailKeys       = append(append([]string{}, specKeys...), "content", "relationships", "feedback")
	feedbackDetailKeys   = append(append([]string{}, feedbackKeys...), "location")
	compactKeys          = []string{"id", "title", "status", "priority", "type", "description"}
	compactFeedbackKeys  = []string{"id", "issue_id", "spec_id", "type", "status", "anchor_status", "line_number", "content"}
	blockerKeys          = []string{"id", "title", "status", "type", "via"}
	blockedItemKeys      = append(append([]string{}, compactKeys...), "blocked_by")
	closeResultKeys      = []string{"id", "success", "error"}
	linkKeys             = []string{"from", "to", "type", "success"}
	errorKeys            = []string{"code", "message", "hint"}
)

// checkIssue checks an Issue object's shape and timestamps.
func checkIssue(j js) {
	j.t.Helper()
	j.keys(issueKeys...)
	j.time("created_at")
	j.time("updated_at")
	j.list("tags")
}

func checkSpec(j js) {
	j.t.Helper()
	j.keys(specKeys...)
	j.time("created_at")
	j.time("updated_at")
	j.list("tags")
}

func checkFeedback(j js) {
	j.t.Helper()
	j.keys(feedbackKeys...)
	j.get("anchor").keys(anchorKeys...)
	j.get("anchor", "original_location").keys(locationKeys...)
	j.time("anchor", "last_verified_at")
	j.time("created_at")
	j.time("updated_at")
}

func checkRel(j js) {
	j.t.Helper()
	j.keys(relKeys...)
	j.time("created_at")
}

// newID checks a new record's id has the form idRE and its uuid is one,
// and returns the id.
func (j js) newID(idRE *regexp.Regexp) string {
	j.t.Helper()
	id := j.str("id")
	if !idRE.MatchString(id) {
		j.t.Errorf("%s: id %q does not match %s", j.what, id, idRE)
	}
	if !uuidRE.MatchString(j.str("uuid")) {
		j.t.Errorf("%s: uuid %q", j.what, j.str("uuid"))
	}
	return id
}

// snapshot is every file under .sudocode except the cache and the lock.
func (p *proj) snapshot() map[string]string {
	p.t.Helper()
	return trackertest.Snapshot(p.t, p.dir, store.CacheFile, store.LockFile)
}

// sameFiles reports the files that differ between two snapshots.
var sameFiles = trackertest.Same
