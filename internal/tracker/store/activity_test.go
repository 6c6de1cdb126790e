package store_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

// activityFile is the absolute path of issue id's activity shard.
func (e *env) activityFile(id string) string {
	return filepath.Join(e.dir, filepath.FromSlash(tracker.ActivityFile(id)))
}

// historyLines renders an issue's history as "actor field from→to" lines.
func historyLines(h []tracker.HistoryEvent) []string {
	out := make([]string, len(h))
	for i, ev := range h {
		out[i] = ev.Actor + " " + ev.Field + " " + orNone(ev.From) + "→" + orNone(ev.To)
		if ev.TaskID != nil {
			out[i] += " (" + *ev.TaskID + ")"
		}
	}
	return out
}

func orNone(s *string) string {
	if s == nil {
		return "-"
	}
	return *s
}

// TestIssueActivity follows an issue through comments and the changes
// that make its history: status, assignee, links both ways, closing, a
// task; each recorded once, by the actor who made it, in time order.
func TestIssueActivity(t *testing.T) {
	e := newEnv(t)
	a := e.issue("A", store.IssueInput{})
	b := e.issue("B", store.IssueInput{})

	c, err := e.r.AddComment(e.ctx, a, "\n\nFirst look: **the parser** is at fault.  \n\n")
	if err != nil {
		t.Fatal(err)
	}
	if c.Body != "First look: **the parser** is at fault." || c.Author != "tester" || c.IssueID != a || !c.CreatedAt.Equal(c.UpdatedAt) {
		t.Errorf("comment = %+v", c)
	}
	if !strings.HasPrefix(c.ID, "tt-c-") || len(c.ID) != len("tt-c-")+12 {
		t.Errorf("comment id %q, want tt-c-<12 characters>", c.ID)
	}

	status, bob := string(tracker.IssueInProgress), "bob"
	if _, err := e.r.UpdateIssue(e.ctx, a, store.IssuePatch{Status: &status, Assignee: &bob}); err != nil {
		t.Fatal(err)
	}
	title := "A, retitled" // not a change the history keeps
	if _, err := e.r.UpdateIssue(e.ctx, a, store.IssuePatch{Title: &title, Status: &status}); err != nil {
		t.Fatal(err)
	}
	e.r.Actor = "alice"
	e.link(a, b, "blocks")
	e.link(a, b, "blocks") // already there: no event
	if _, err := e.r.Unlink(e.ctx, a, b, "blocks"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.r.CloseIssues(e.ctx, []string{a}, "done"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.r.CloseIssues(e.ctx, []string{a}, "done"); err != nil { // closed already: no event
		t.Fatal(err)
	}
	if err := e.r.RecordTask(e.ctx, a, "task-1", "merged"); err != nil {
		t.Fatal(err)
	}
	wantCode(t, "an unknown task event", e.r.RecordTask(e.ctx, a, "task-1", "exploded"), fault.Invalid)
	if _, err := e.r.AddComment(e.ctx, a, "Fixed on main."); err != nil {
		t.Fatal(err)
	}

	e.next()
	d, err := e.r.ShowIssue(e.ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Comments) != 2 || d.Comments[0].ID != c.ID || d.Comments[1].Body != "Fixed on main." || d.Comments[1].Author != "alice" {
		t.Fatalf("comments = %+v", d.Comments)
	}
	link := a + " blocks " + b
	want := []string{
		"tester status open→in_progress",
		"tester assignee -→bob",
		"alice link -→" + link,
		"alice link " + link + "→-",
		"alice status in_progress→closed",
		"alice task -→merged (task-1)",
	}
	if got := historyLines(d.History); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("history of A:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for i := 1; i < len(d.History); i++ {
		if d.History[i].At.Before(d.History[i-1].At) {
			t.Errorf("history out of time order at %d", i)
		}
	}
	db, err := e.r.ShowIssue(e.ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	if got := historyLines(db.History); len(got) != 2 || got[0] != "alice link -→"+link || got[1] != "alice link "+link+"→-" {
		t.Errorf("history of B (the other end of the link) = %q", got)
	}
	if db.Comments == nil || len(db.Comments) != 0 {
		t.Errorf("B's comments = %#v, want []", db.Comments)
	}
}

func TestAddCommentRefusals(t *testing.T) {
	e := newEnv(t)
	a := e.issue("A", store.IssueInput{})
	_, err := e.r.AddComment(e.ctx, "tt-zzzz", "hello")
	wantCode(t, "unknown issue", err, fault.NotFound)
	_, err = e.r.AddComment(e.ctx, a, " \n\t ")
	wantCode(t, "empty body", err, fault.Invalid)
	_, err = e.r.AddComment(e.ctx, a, strings.Repeat("x", tracker.MaxCommentBytes+1))
	wantCode(t, "body over the limit", err, fault.Invalid)
	_, err = e.r.AddComment(e.ctx, a, "bad \xff utf-8")
	wantCode(t, "invalid UTF-8", err, fault.Invalid)
	if _, err := os.Stat(e.activityFile(a)); !os.IsNotExist(err) {
		t.Errorf("a refused comment wrote the activity file: %v", err)
	}
}

// TestActivityAppends: a comment appends a line to the issue's activity
// shard and leaves the record shards alone; an update appends to it too.
func TestActivityAppends(t *testing.T) {
	e := newEnv(t)
	a := e.issue("A", store.IssueInput{})
	issueShard := e.shardOf(tracker.IssueRecords, a)
	before := readFile(t, issueShard)
	if _, err := e.r.AddComment(e.ctx, a, "one"); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, issueShard); got != before {
		t.Errorf("a comment rewrote the issue's shard")
	}
	first := readFile(t, e.activityFile(a))
	status := "blocked"
	if _, err := e.r.UpdateIssue(e.ctx, a, store.IssuePatch{Status: &status}); err != nil {
		t.Fatal(err)
	}
	second := readFile(t, e.activityFile(a))
	if !strings.HasPrefix(second, first) || strings.Count(second, "\n") != 2 {
		t.Errorf("the activity file was not appended to:\n%s\nthen\n%s", first, second)
	}
}

// TestActivityFromDisk: the activity shard comes from git, so from
// anyone: lines that are not valid records (garbage, an unknown key, a
// body over the limit, an id with a slash, conflict markers git left) are
// skipped when showing, the valid ones kept once; a torn last line (a
// writer killed mid-append) is cut off before the next append.
func TestActivityFromDisk(t *testing.T) {
	e := newEnv(t)
	a := e.issue("A", store.IssueInput{})
	ok := `{"id":"tt-c-aaaaaaaaaaaa","issue_id":"` + a + `","type":"comment","actor":"x","at":"2025-03-01T10:00:00Z","body":"kept"}`
	other := `{"id":"tt-c-bbbbbbbbbbbb","issue_id":"` + a + `","type":"comment","actor":"y","at":"2025-03-01T11:00:00Z","body":"theirs"}`
	hostile := []string{
		"<<<<<<< ours", ok, "=======", ok, other, ">>>>>>> theirs",
		`not json`,
		`{"id":"tt-c-cccccccccccc","issue_id":"` + a + `","type":"comment","actor":"x","at":"2025-03-01T10:00:00Z","body":"x","extra":1}`,
		`{"id":"tt-c-dddddddddddd","issue_id":"` + a + `","type":"comment","actor":"x","at":"2025-03-01T10:00:00Z","body":"` + strings.Repeat("x", tracker.MaxCommentBytes+1) + `"}`,
		`{"id":"../../etc","issue_id":"` + a + `","type":"comment","actor":"x","at":"2025-03-01T10:00:00Z","body":"x"}`,
		`{"id":"tt-h-eeeeeeeeeeee","issue_id":"` + a + `","type":"change","actor":"x","at":"2025-03-01T10:00:00Z","field":"title","to":"x"}`,
	}
	p := e.activityFile(a)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(strings.Join(hostile, "\n")+"\n"+`{"id":"tt-c-torn`), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := e.r.ShowIssue(e.ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Comments) != 2 || d.Comments[0].Body != "kept" || d.Comments[1].Body != "theirs" || len(d.History) != 0 {
		t.Fatalf("comments %+v, history %+v", d.Comments, d.History)
	}
	var notes []string
	e.r.Notify = func(msg string) { notes = append(notes, msg) }
	if _, err := e.r.AddComment(e.ctx, a, "after the tear"); err != nil {
		t.Fatal(err)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "was left as it is") {
		t.Errorf("notices: %q", notes)
	}
	data := readFile(t, p)
	if strings.Contains(data, "torn") || !strings.HasSuffix(data, "\n") {
		t.Errorf("the torn line was not cut off:\n%s", data)
	}
	if d, err = e.r.ShowIssue(e.ctx, a); err != nil || len(d.Comments) != 3 {
		t.Fatalf("after the append: %+v, %v", d.Comments, err)
	}
}

// TestActivityFileIsNotALink: an activity shard that is a link (out of the
// tracker) is neither read nor written through.
func TestActivityFileIsNotALink(t *testing.T) {
	e := newEnv(t)
	a := e.issue("A", store.IssueInput{})
	outside := filepath.Join(t.TempDir(), "outside.jsonl")
	if err := os.WriteFile(outside, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	p := e.activityFile(a)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, p); err != nil {
		t.Fatal(err)
	}
	_, err := e.r.AddComment(e.ctx, a, "through the link?")
	wantCode(t, "comment through a link", err, fault.Invalid)
	// A change the history records is refused before any file is
	// written, rather than made without its history.
	before := e.snapshot()
	status := "blocked"
	_, err = e.r.UpdateIssue(e.ctx, a, store.IssuePatch{Status: &status})
	wantCode(t, "a status change with its history through a link", err, fault.Invalid)
	sameSnapshot(t, "a refused update", before, e.snapshot())
	if got := readFile(t, outside); got != "" {
		t.Errorf("written through the link: %q", got)
	}
}

// TestStampSeesActivity: a comment, which changes no record file, changes
// the tracker's stamp, so that an open dashboard shows it.
func TestStampSeesActivity(t *testing.T) {
	e := newEnv(t)
	a := e.issue("A", store.IssueInput{})
	before := store.Stamp(e.dir)
	if _, err := e.r.AddComment(e.ctx, a, "seen?"); err != nil {
		t.Fatal(err)
	}
	mid := store.Stamp(e.dir)
	if mid == before {
		t.Error("the stamp did not change with the first comment")
	}
	if _, err := e.r.AddComment(e.ctx, a, "and again?"); err != nil {
		t.Fatal(err)
	}
	if store.Stamp(e.dir) == mid {
		t.Error("the stamp did not change with a comment appended")
	}
}

// TestActivityExportImport: export carries the activity shards, import
// merges them into the tracker's as the merge driver does (both sides'
// comments kept, once); a malformed incoming shard refuses the import
// with nothing written.
func TestActivityExportImport(t *testing.T) {
	one, two := newEnv(t), newEnv(t)
	a := one.issue("A", store.IssueInput{})
	if _, err := one.r.AddComment(one.ctx, a, "from one"); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if _, err := one.r.Export(one.ctx, out); err != nil {
		t.Fatal(err)
	}
	if _, err := two.r.Import(two.ctx, out); err != nil {
		t.Fatal(err)
	}
	two.clk.Set(t0.Add(day)) // the two trackers' clocks, in one order
	if _, err := two.r.AddComment(two.ctx, a, "from two"); err != nil {
		t.Fatal(err)
	}
	back := t.TempDir()
	if _, err := two.r.Export(two.ctx, back); err != nil {
		t.Fatal(err)
	}
	one.clk.Set(t0.Add(2 * day))
	if _, err := one.r.AddComment(one.ctx, a, "one again"); err != nil {
		t.Fatal(err)
	}
	if _, err := one.r.Import(one.ctx, back); err != nil {
		t.Fatal(err)
	}
	one.next()
	d, err := one.r.ShowIssue(one.ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	var bodies []string
	for _, c := range d.Comments {
		bodies = append(bodies, c.Body)
	}
	if strings.Join(bodies, "|") != "from one|from two|one again" {
		t.Errorf("comments after the round trip: %q", bodies)
	}

	bad := filepath.Join(back, filepath.FromSlash(tracker.ActivityFile(a)))
	if err := os.WriteFile(bad, []byte("{broken\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := one.snapshot()
	_, err = one.r.Import(one.ctx, back)
	wantCode(t, "an import with a malformed activity shard", err, fault.Invalid)
	sameSnapshot(t, "a refused import", before, one.snapshot())
}

// TestActivityConflictRepaired: an activity shard git merged as text
// (without the driver) holds conflict markers; doctor's Conflicts lists
// it, show reads both sides meanwhile, and the next comment repairs it
// with the tracker's merge (the union) before appending, saying so.
func TestActivityConflictRepaired(t *testing.T) {
	e := newEnv(t)
	var notes []string
	e.r.Notify = func(msg string) { notes = append(notes, msg) }
	a := e.issue("A", store.IssueInput{})
	line := func(id, body string, hour int) string {
		return `{"id":"` + id + `","issue_id":"` + a + `","type":"comment","actor":"x","at":"2025-03-01T` +
			[]string{"08", "10", "11"}[hour] + `:00:00Z","body":"` + body + `"}`
	}
	base, ours, theirs := line("tt-c-000000000000", "base", 0), line("tt-c-111111111111", "ours", 1), line("tt-c-222222222222", "theirs", 2)
	p := e.activityFile(a)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	marked := strings.Join([]string{base, "<<<<<<< HEAD", ours, "=======", theirs, ">>>>>>> feature"}, "\n") + "\n"
	if err := os.WriteFile(p, []byte(marked), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := store.Conflicts(e.dir); err != nil || len(got) != 1 || got[0] != tracker.ActivityFile(a) {
		t.Errorf("Conflicts = %q, %v", got, err)
	}
	if d, err := e.r.ShowIssue(e.ctx, a); err != nil || len(d.Comments) != 3 {
		t.Fatalf("show before the repair: %d comments, %v", len(d.Comments), err)
	}
	if _, err := e.r.AddComment(e.ctx, a, "after"); err != nil {
		t.Fatal(err)
	}
	data := readFile(t, p)
	if strings.Contains(data, "<<<<<<<") || strings.Count(data, "\n") != 4 {
		t.Errorf("the shard after the comment:\n%s", data)
	}
	if _, err := tracker.ParseActivity([]byte(data)); err != nil {
		t.Errorf("the repaired shard does not parse strictly: %v", err)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "repaired the merge conflict in .sudocode/"+tracker.ActivityFile(a)) {
		t.Errorf("notices: %q", notes)
	}
	if got, _ := store.Conflicts(e.dir); len(got) != 0 {
		t.Errorf("still conflicted: %q", got)
	}
}
