package store_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/store"
	"github.com/sudocode/sudocode/internal/tracker/trackertest"
)

// populated is a tracker with a bit of everything: links of every family,
// a parent, a closed issue, specs in several states, and feedback whose
// anchors are valid, relocated by a spec update, relocated by hand, and
// stale.
func populated(t *testing.T) *env {
	e, spec, a, b, _ := loginSpec(t)
	i1 := e.issue("epic", store.IssueInput{Type: "epic", Priority: new(0), Tags: []string{"b", "a"}})
	i2 := e.issue("child", store.IssueInput{Parent: &i1, Assignee: new("ann"), Estimate: new(30)})
	i3 := e.issue("blocker", store.IssueInput{Type: "bug", Description: "a long description " + strings.Repeat("x", 200)})
	i4 := e.issue("done", store.IssueInput{})
	s2 := e.spec("API", store.SpecInput{Type: "api", Description: new("the API"), Design: "# API\n\nGET /x\n"})
	e.link(i1, i3, "blocks")
	e.link(i2, s2, "implements")
	e.link(s2, spec, "depends-on")
	e.link(i3, i4, "discovered-from")
	if _, err := e.r.CloseIssues(e.ctx, []string{i4}, "fixed"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.r.UpdateSpec(e.ctx, spec, store.SpecPatch{Status: new("review"), Content: new(loginV2)}); err != nil {
		t.Fatal(err)
	}
	// a and b are now relocated; make a stale, then relocate it by hand.
	v := strings.Replace(loginV2, "Refresh tokens last 30 days.\n", "", 1)
	if _, err := e.r.UpdateSpec(e.ctx, spec, store.SpecPatch{Content: &v}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.r.RelocateFeedback(e.ctx, a, 12); err != nil {
		t.Fatal(err)
	}
	e.wantAnchor(b, anchorAt{7, tracker.AnchorValid, "Errors", "Return 401 on expiry.", 12}) // in place after the second update
	e.wantAnchor(a, anchorAt{12, tracker.AnchorRelocated, "Tokens", "Access tokens last 15 minutes.", 8})
	// A stale one too.
	f := e.feedback(i2, s2, 3, "")
	if _, err := e.r.UpdateSpec(e.ctx, s2, store.SpecPatch{Content: new("# API\n\nPOST /y\n")}); err != nil {
		t.Fatal(err)
	}
	e.wantStale(f.ID)
	return e
}

// views is everything the read commands show, as JSON, at a fixed clock.
func (e *env) views() map[string]string {
	e.t.Helper()
	out := map[string]string{}
	put := func(k string, v any, err error) {
		e.t.Helper()
		if err != nil {
			e.t.Fatalf("%s: %v", k, err)
		}
		raw, _ := json.Marshal(v)
		out[k] = string(raw)
	}
	il, err := e.r.ListIssues(e.ctx, store.IssueFilter{Limit: 1000})
	put("issue list", il, err)
	sl, err := e.r.ListSpecs(e.ctx, store.SpecFilter{Limit: 1000})
	put("spec list", sl, err)
	fl, err := e.r.ListFeedback(e.ctx, store.FeedbackFilter{Limit: 1000})
	put("feedback list", fl, err)
	for _, c := range il.Issues {
		d, err := e.r.ShowIssue(e.ctx, c.ID)
		put("issue show "+c.ID, d, err)
	}
	for _, c := range sl.Specs {
		d, err := e.r.ShowSpec(e.ctx, c.ID)
		put("spec show "+c.ID, d, err)
	}
	for _, c := range fl.Feedback {
		d, err := e.r.ShowFeedback(e.ctx, c.ID)
		put("feedback show "+c.ID, d, err)
	}
	r, err := e.r.Ready(e.ctx, store.ReadyOptions{Issues: true, Specs: true})
	put("ready", r, err)
	b, err := e.r.Blocked(e.ctx, store.BlockedOptions{Issues: true, Specs: true})
	put("blocked", b, err)
	e.clk.Set(t0.Add(30 * day))
	s, err := e.r.Stats(e.ctx)
	put("stats", s, err)
	st, err := e.r.Status(e.ctx, true)
	put("status", st, err)
	return out
}

func removeCache(t *testing.T, dir string) {
	t.Helper()
	for _, f := range []string{"cache.db", "cache.db-wal", "cache.db-shm"} {
		if err := os.Remove(filepath.Join(dir, f)); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
}

// TestCacheRebuiltIdentically: without cache.db, the next command rebuilds
// it from the files; every view is the same and no file changes.
func TestCacheRebuiltIdentically(t *testing.T) {
	e := populated(t)
	e.next()
	files, views := e.snapshot(), e.views()
	e.r.Close()
	e.r = nil
	removeCache(t, e.dir)
	e.next()
	sameSnapshot(t, "rebuilding the cache", files, e.snapshot())
	if got := e.views(); !reflect.DeepEqual(got, views) {
		for k := range views {
			if got[k] != views[k] {
				t.Errorf("%s after the rebuild:\n got %s\nwant %s", k, got[k], views[k])
			}
		}
	}
	if _, err := os.Stat(filepath.Join(e.dir, store.CacheFile)); err != nil {
		t.Errorf("no cache after the rebuild: %v", err)
	}

	// A JSONL file touched without a change (a checkout, say) also rebuilds
	// the cache, again without changing a file.
	p := filepath.Join(e.dir, filepath.FromSlash(e.shards(tracker.IssueRecords)[0]))
	fi, _ := os.Stat(p)
	bump(t, p, fi.ModTime())
	e.next()
	sameSnapshot(t, "rebuilding after a touch", files, e.snapshot())
	if got := e.views(); !reflect.DeepEqual(got, views) {
		t.Errorf("views changed after a touch of %s", p)
	}
}

// editLines rewrites a JSONL file by hand: edit gets each line (without its
// newline) and returns its replacement lines.
func editLines(t *testing.T, path string, edit func(n int, line string) []string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(path)
	var out []string
	for n, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		out = append(out, edit(n+1, l)...)
	}
	text := strings.Join(out, "\n") + "\n"
	if len(out) == 0 {
		text = "" // the last line removed
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	bump(t, path, fi.ModTime())
}

// setTitle edits issue id's title by hand in path, its shard file.
func setTitle(t *testing.T, path, id, title string) {
	t.Helper()
	editLines(t, path, func(_ int, l string) []string {
		var rec tracker.IssueRecord
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatal(err)
		}
		if rec.ID == id {
			rec.Title = title
			b, _ := tracker.MarshalLine(rec)
			l = strings.TrimSuffix(string(b), "\n")
		}
		return []string{l}
	})
}

// TestCacheSeesHandEdits: issue and spec files edited by hand are
// what the next command sees, and a change made after the edit keeps it.
func TestCacheSeesHandEdits(t *testing.T) {
	e := newEnv(t)
	a := e.issue("Alpha", store.IssueInput{})
	b := e.issue("Bravo", store.IssueInput{})
	s := e.spec("Spec", store.SpecInput{})
	issues := e.shardOf(tracker.IssueRecords, a)

	title := func(id string) string {
		t.Helper()
		d, err := e.r.ShowIssue(e.ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return d.Title
	}

	setTitle(t, issues, a, "Alpha, renamed by hand")
	e.next()
	if got := title(a); got != "Alpha, renamed by hand" {
		t.Errorf("after a hand edit, the title is %q", got)
	}
	l, _ := e.r.ListIssues(e.ctx, store.IssueFilter{})
	if l.Issues[0].Title != "Alpha, renamed by hand" {
		t.Errorf("list after a hand edit: %+v", l.Issues)
	}

	// The same length, so only the modification time tells.
	setTitle(t, issues, a, "Omega, renamed by hand")
	e.next()
	if got := title(a); got != "Omega, renamed by hand" {
		t.Errorf("after a same-size hand edit, the title is %q", got)
	}

	// Edited while a tracker is open: its next change keeps the edit.
	setTitle(t, issues, a, "Gamma")
	if _, err := e.r.UpdateIssue(e.ctx, b, store.IssuePatch{Priority: new(1)}); err != nil {
		t.Fatal(err)
	}
	recs := trackertest.ReadRecords[tracker.IssueRecord](t, e.dir)
	if len(recs) != 2 {
		t.Fatalf("issue files: %+v", recs)
	}
	for _, r := range recs {
		if r.ID == a && r.Title != "Gamma" {
			t.Errorf("a change after a hand edit lost it: title %q", r.Title)
		}
		if r.ID == b && r.Priority != 1 {
			t.Errorf("the change was lost: %+v", r)
		}
	}
	if got := title(a); got != "Gamma" {
		t.Errorf("title %q, want Gamma", got)
	}

	// A line removed by hand: the issue is gone.
	e.editRecord(tracker.IssueRecords, b, func(string) []string { return nil })
	e.next()
	_, err := e.r.ShowIssue(e.ctx, b)
	wantCode(t, "show of an issue removed by hand", err, fault.NotFound)
	if l, _ := e.r.ListIssues(e.ctx, store.IssueFilter{}); l.Total != 1 {
		t.Errorf("%d issues after removing one by hand, want 1", l.Total)
	}

	// A spec by hand: a status change shows in ready.
	e.editRecord(tracker.SpecRecords, s, func(l string) []string {
		return []string{strings.Replace(l, `"status":"draft"`, `"status":"approved"`, 1)}
	})
	e.next()
	r, err := e.r.Ready(e.ctx, store.ReadyOptions{Specs: true})
	if err != nil || len(*r.Specs) != 0 {
		t.Errorf("ready specs after approving %s by hand: %+v, %v", s, r.Specs, err)
	}
}

// TestMalformedJSONL: a line that is not a valid record stops every
// command with an error naming the file and the line, and nothing on disk
// changes; once fixed, the tracker works again.
func TestMalformedJSONL(t *testing.T) {
	for _, kind := range tracker.RecordKinds {
		for _, bad := range []struct{ name, line string }{
			{"not json", `{"id": "tt-zzzz", "title": `},
			{"merge conflict", `<<<<<<< HEAD`},
			{"unknown field", `{"id":"tt-zzzz","colour":"red"}`},
			{"no id", `{"title":"x"}`},
		} {
			t.Run(kind.Dir()+"/"+bad.name, func(t *testing.T) {
				t.Parallel()
				e, _, _, _, _ := loginSpec(t)
				e.issue("second issue", store.IssueInput{})
				e.spec("second spec", store.SpecInput{Design: "x\n"})
				file := e.shards(kind)[0]
				path := filepath.Join(e.dir, filepath.FromSlash(file))
				good, _ := os.ReadFile(path)
				editLines(t, path, func(n int, l string) []string {
					if n == 1 {
						return []string{l, bad.line}
					}
					return []string{l}
				})
				before := e.snapshot()

				// The next command, reading or writing.
				r, err := store.Open(e.ctx, e.dir, "tester")
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				_, err = r.ListIssues(e.ctx, store.IssueFilter{})
				wantCode(t, "list", err, fault.Invalid)
				if err == nil || !strings.Contains(err.Error(), file+" line 2 ") {
					t.Errorf("list: %v; want it to name %s line 2", err, file)
				}
				if h := fault.HintOf(err); !strings.Contains(h, "correct the line") {
					t.Errorf("hint %q", h)
				}
				r.Close()
				r, err = store.Open(e.ctx, e.dir, "tester")
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				_, err = r.UpdateIssue(e.ctx, "tt-zzzz", store.IssuePatch{Title: new("x")})
				wantCode(t, "update", err, fault.Invalid)
				// A tracker opened before the damage refuses to change.
				_, err = e.r.CreateIssue(e.ctx, store.IssueInput{Title: "new"})
				wantCode(t, "create", err, fault.Invalid)
				if err == nil || !strings.Contains(err.Error(), file+" line 2 ") {
					t.Errorf("create: %v; want it to name %s line 2", err, file)
				}
				sameSnapshot(t, "commands on a malformed file", before, e.snapshot())

				if err := os.WriteFile(path, good, 0o644); err != nil {
					t.Fatal(err)
				}
				e.next()
				e.issue("after the fix", store.IssueInput{})
			})
		}
	}
}

// TestSpecFilePath: a spec's file_path stays inside the project and never
// names one of the tracker's own files; a refusal changes nothing.
func TestSpecFilePath(t *testing.T) {
	e := newEnv(t)
	e.spec("first", store.SpecInput{Design: "# first\n"})
	before := e.snapshot()
	for _, p := range []string{
		"issues.jsonl", "specs.jsonl", "feedback.jsonl", "config.json", "cache.db", ".lock", ".gitignore",
		"./issues.jsonl", "specs/../issues.jsonl", "../.sudocode/feedback.jsonl", "records/issues/00.jsonl",
		"../../outside.md", "/etc/passwd", "specs/",
	} {
		_, err := e.r.CreateSpec(e.ctx, store.SpecInput{Title: "bad", FilePath: p, Design: "# not JSON\n"})
		wantCode(t, "file path "+p, err, fault.Invalid)
	}
	sameSnapshot(t, "refused file paths", before, e.snapshot())
	e.next()
	if l, err := e.r.ListSpecs(e.ctx, store.SpecFilter{}); err != nil || l.Total != 1 {
		t.Errorf("after refused file paths: %+v, %v", l, err)
	}

	// Custom paths that are fine: under specs/, elsewhere in .sudocode, in the project.
	for p, want := range map[string]string{
		"specs/auth.md":               "specs/auth.md",
		"design/api.md":               "design/api.md",
		"../docs/arch.md":             "../docs/arch.md",
		"../.sudocode/specs/other.md": "specs/other.md",
	} {
		s, err := e.r.CreateSpec(e.ctx, store.SpecInput{Title: p, FilePath: p, Design: "# " + p + "\n"})
		if err != nil || s.FilePath != want {
			t.Errorf("file path %s: %+v, %v", p, s.FilePath, err)
			continue
		}
		if b, err := os.ReadFile(filepath.Join(e.dir, filepath.FromSlash(want))); err != nil || string(b) != "# "+p+"\n" {
			t.Errorf("file of %s: %q, %v", p, b, err)
		}
	}
	_, err := e.r.CreateSpec(e.ctx, store.SpecInput{Title: "dup", FilePath: "specs/auth.md"})
	wantCode(t, "a taken file path", err, fault.Conflict)
}

// TestDanglingLinks: a link whose target is gone from the files (removed by
// hand, or lost in a merge) blocks nothing: show, ready, blocked and the
// counts all agree that an unknown item is not an unfinished blocker.
func TestDanglingLinks(t *testing.T) {
	g := buildGraph(t, []string{"A", "B", "C", "S spec"}, []string{"A blocks B", "C depends-on S"})
	e := g.e
	drop := func(k tracker.RecordKind, id string) {
		e.editRecord(k, id, func(string) []string { return nil })
	}
	drop(tracker.IssueRecords, g.ids["B"])
	drop(tracker.SpecRecords, g.ids["S"])
	e.next()
	for _, n := range []string{"A", "C"} {
		d, err := e.r.ShowIssue(e.ctx, g.ids[n])
		if err != nil {
			t.Fatal(err)
		}
		if len(d.BlockedBy) != 0 {
			t.Errorf("%s is blocked by %+v, which is gone", n, d.BlockedBy)
		}
	}
	r, err := e.r.Ready(e.ctx, store.ReadyOptions{Issues: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := g.compactNames(r.Issues); !reflect.DeepEqual(got, []string{"A", "C"}) {
		t.Errorf("ready = %q, want A and C", got)
	}
	b, err := e.r.Blocked(e.ctx, store.BlockedOptions{Issues: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := g.blockedNames(b.Issues); len(got) != 0 {
		t.Errorf("blocked = %q, want none", got)
	}
	st, err := e.r.Stats(e.ctx)
	if err != nil || st.Issues.Ready != 2 || st.Issues.Blocked != 0 {
		t.Errorf("stats: ready %d, blocked %d (%v); want 2, 0", st.Issues.Ready, st.Issues.Blocked, err)
	}
}

// TestInvalidRecords: a line that parses but is not a valid record (an
// unknown enumeration value, a priority out of range, an id twice, as a
// line-based merge can leave) stops every command with an error naming
// the file and the line, and nothing on disk changes.
func TestInvalidRecords(t *testing.T) {
	tests := []struct {
		name     string
		kind     tracker.RecordKind
		old, new string
		msg      string
	}{
		{"issue status", tracker.IssueRecords, `"status":"open"`, `"status":"done"`, `invalid status "done"`},
		{"issue type", tracker.IssueRecords, `"type":"task"`, `"type":"story"`, `invalid type "story"`},
		{"issue priority", tracker.IssueRecords, `"priority":2`, `"priority":9`, "invalid priority 9"},
		{"relationship type", tracker.IssueRecords, `"type":"blocks"`, `"type":"blocker"`, `invalid relationship type "blocker"`},
		{"spec status", tracker.SpecRecords, `"status":"draft"`, `"status":"final"`, `invalid status "final"`},
		{"feedback status", tracker.FeedbackRecords, `"status":"open"`, `"status":"closed"`, `invalid status "closed"`},
		{"anchor status", tracker.FeedbackRecords, `"anchor_status":"valid"`, `"anchor_status":"lost"`, `invalid anchor status "lost"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e, spec, _, _, _ := loginSpec(t)
			a := e.issue("blocked", store.IssueInput{})
			b := e.issue("blocker", store.IssueInput{})
			e.link(a, b, "blocks")
			e.link(spec, a, "references")
			file, edited := e.editFirst(tc.kind, tc.old, tc.new)
			before := e.snapshot()
			e.next()
			_, err := e.r.ListIssues(e.ctx, store.IssueFilter{})
			wantCode(t, "list", err, fault.Invalid)
			where := fmt.Sprintf("%s line %d ", file, edited)
			if err == nil || !strings.Contains(err.Error(), where) || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("list: %v; want it to name %s and say %q", err, where, tc.msg)
			}
			sameSnapshot(t, "commands on an invalid record", before, e.snapshot())
		})
	}

	// The same id twice: one of the two would be lost at the next write.
	e := newEnv(t)
	one := e.issue("one", store.IssueInput{})
	e.issue("two", store.IssueInput{})
	e.editRecord(tracker.IssueRecords, one, func(l string) []string {
		return []string{l, strings.Replace(l, `"title":"one"`, `"title":"one, edited on a branch"`, 1)}
	})
	file := tracker.ShardFile(tracker.IssueRecords, one)
	line := 1 + strings.Count(strings.Split(readFile(t, e.shardOf(tracker.IssueRecords, one)), `"title":"one, edited`)[0], "\n")
	before := e.snapshot()
	e.next()
	_, err := e.r.CreateIssue(e.ctx, store.IssueInput{Title: "three"})
	wantCode(t, "create", err, fault.Invalid)
	where := fmt.Sprintf("%s line %d ", file, line)
	if err == nil || !strings.Contains(err.Error(), where) || !strings.Contains(err.Error(), "duplicate id") {
		t.Errorf("create: %v; want it to name %s, a duplicate id", err, where)
	}
	sameSnapshot(t, "commands on a duplicate id", before, e.snapshot())
}
