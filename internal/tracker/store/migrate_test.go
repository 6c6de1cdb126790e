package store_test

import (
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/store"
	"github.com/sudocode/sudocode/internal/tracker/trackertest"
)

// toFirstLayout turns e's tracker back into the first layout, one file a
// kind (issues.jsonl …), as a tracker written before the shards is; it
// returns those files' content.
func (e *env) toFirstLayout() map[tracker.RecordKind]string {
	e.t.Helper()
	e.r.Close()
	e.r = nil
	out := map[tracker.RecordKind]string{}
	for _, k := range tracker.RecordKinds {
		var lines []string
		for _, f := range e.shards(k) {
			lines = append(lines, strings.Split(strings.TrimSuffix(readFile(e.t, filepath.Join(e.dir, f)), "\n"), "\n")...)
		}
		sort.Strings(lines)
		text := strings.TrimPrefix(strings.Join(lines, "\n")+"\n", "\n")
		if err := os.WriteFile(filepath.Join(e.dir, k.LegacyFile()), []byte(text), 0o644); err != nil {
			e.t.Fatal(err)
		}
		out[k] = text
	}
	// The shards of the cached kinds go; the activity shards, which the
	// first layout had no file for, stay (a tracker moved has them).
	for _, k := range tracker.RecordKinds {
		if err := os.RemoveAll(filepath.Join(e.dir, tracker.RecordsDir, k.Dir())); err != nil {
			e.t.Fatal(err)
		}
	}
	removeCache(e.t, e.dir)
	return out
}

// TestMigrationFromFirstLayout: a tracker of the first layout is moved into
// shard files by its next command, read-only or not: every record is in
// its shard, canonical, the old files are gone, and every view is what it
// was; a second run changes nothing.
func TestMigrationFromFirstLayout(t *testing.T) {
	e := populated(t)
	e.next()
	files, views := e.snapshot(), e.views()
	e.toFirstLayout()
	e.next()
	if got := e.views(); !reflect.DeepEqual(got, views) {
		for k := range views {
			if got[k] != views[k] {
				t.Errorf("%s after the move:\n got %s\nwant %s", k, got[k], views[k])
			}
		}
	}
	sameSnapshot(t, "the move to shards", files, e.snapshot())
	for _, k := range tracker.RecordKinds {
		if _, err := os.Stat(filepath.Join(e.dir, k.LegacyFile())); !os.IsNotExist(err) {
			t.Errorf("%s is still there after the move: %v", k.LegacyFile(), err)
		}
	}
	trackertest.ReadRecords[tracker.IssueRecord](t, e.dir)
	trackertest.ReadRecords[tracker.SpecRecord](t, e.dir)
	trackertest.ReadRecords[tracker.Feedback](t, e.dir)
	e.next()
	sameSnapshot(t, "a command after the move", files, e.snapshot())
}

// TestMigrationRefusesABadFile: a first-layout file with a bad line stops
// the move before anything is written, naming the file and the line; the
// old files stay as they were. Once fixed, the move happens.
func TestMigrationRefusesABadFile(t *testing.T) {
	e := populated(t)
	old := e.toFirstLayout()
	p := filepath.Join(e.dir, tracker.IssueRecords.LegacyFile())
	bad := strings.Replace(old[tracker.IssueRecords], "\n", "\n<<<<<<< HEAD\n", 1)
	if err := os.WriteFile(p, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	before := e.snapshot()
	e.next()
	_, err := e.r.ListIssues(e.ctx, store.IssueFilter{})
	wantCode(t, "list on a bad first-layout file", err, fault.Invalid)
	if err == nil || !strings.Contains(err.Error(), "issues.jsonl line 2 ") {
		t.Errorf("error %v; want it to name issues.jsonl line 2", err)
	}
	sameSnapshot(t, "a refused move", before, e.snapshot())
	if err := os.WriteFile(p, []byte(old[tracker.IssueRecords]), 0o644); err != nil {
		t.Fatal(err)
	}
	e.next()
	if l, err := e.r.ListIssues(e.ctx, store.IssueFilter{Limit: 100}); err != nil || l.Total == 0 {
		t.Fatalf("after the fix: %+v, %v", l, err)
	}
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Errorf("issues.jsonl is still there after the move: %v", err)
	}
}

// TestMigrationKeepsOldFilesUntilShardsAreWritten: when the shard files
// cannot be written (here records/issues is a plain file), the move stops
// and the first-layout files are untouched; a later run completes it.
func TestMigrationKeepsOldFilesUntilShardsAreWritten(t *testing.T) {
	e := populated(t)
	old := e.toFirstLayout()
	blocker := filepath.Join(e.dir, tracker.RecordsDir, tracker.IssueRecords.Dir())
	os.MkdirAll(filepath.Dir(blocker), 0o755)
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	e.next()
	_, err := e.r.ListIssues(e.ctx, store.IssueFilter{})
	wantCode(t, "a move that cannot write", err, fault.Unavailable)
	for k, text := range old {
		if got := readFile(t, filepath.Join(e.dir, k.LegacyFile())); got != text {
			t.Errorf("%s changed by a failed move", k.LegacyFile())
		}
	}
	os.Remove(blocker)
	e.next()
	if l, err := e.r.ListIssues(e.ctx, store.IssueFilter{Limit: 100}); err != nil || l.Total == 0 {
		t.Fatalf("after the fix: %+v, %v", l, err)
	}
}

// TestFirstLayoutFileMergedIn: a first-layout file that comes back after
// the move (a branch from before it, merged in, or a run killed between
// writing the shards and removing the old file) is merged into the
// shards: its new records added, its later edits kept, nothing lost.
func TestFirstLayoutFileMergedIn(t *testing.T) {
	e := populated(t)
	old := e.toFirstLayout()
	e.next()
	e.issue("made after the move", store.IssueInput{})
	// The old file again, with one record edited later on its branch.
	lines := strings.Split(strings.TrimSuffix(old[tracker.IssueRecords], "\n"), "\n")
	edited, err := tracker.ParseIssues([]byte(lines[0]), nil)
	if err != nil || len(edited) != 1 {
		t.Fatalf("%q: %v", lines[0], err)
	}
	edited[0].Title = "edited on an old branch: " + edited[0].Title
	edited[0].UpdatedAt = edited[0].UpdatedAt.AddDate(1, 0, 0)
	line, _ := tracker.MarshalLine(edited[0])
	lines[0] = strings.TrimSuffix(string(line), "\n")
	if err := os.WriteFile(filepath.Join(e.dir, "issues.jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.next()
	d, err := e.r.ShowIssue(e.ctx, edited[0].ID)
	if err != nil || !strings.HasPrefix(d.Title, "edited on an old branch: ") {
		t.Errorf("the old branch's later edit: %q, %v", d.Title, err)
	}
	l, err := e.r.ListIssues(e.ctx, store.IssueFilter{Limit: 1000})
	if err != nil || l.Total != len(lines)+1 {
		t.Errorf("%d issues after merging the old file back (%v); want %d", l.Total, err, len(lines)+1)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "issues.jsonl")); !os.IsNotExist(err) {
		t.Errorf("issues.jsonl is still there: %v", err)
	}
}
