package store_test

// Tests of the store on real files in a temporary directory: what the
// tracker's commands do, seen through the Repo methods they call, and what
// ends up in the .sudocode files.

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/store"
	"github.com/sudocode/sudocode/internal/tracker/trackertest"
)

// t0 is the fake clock's start.
var t0 = time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)

const day = 24 * time.Hour

// clock is a fake time source that advances by one second at every read,
// so that every change gets a distinct, increasing time.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(time.Second)
	return c.now
}

func (c *clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

// env is a project with a tracker, and the Repo of the command running now.
type env struct {
	t    *testing.T
	ctx  context.Context
	root string // the project
	dir  string // root/.sudocode
	clk  *clock
	r    *store.Repo
}

func newEnv(t *testing.T) *env {
	t.Helper()
	root := t.TempDir()
	res, err := store.Init(root, "tt")
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, ctx: context.Background(), root: root, dir: res.Path, clk: &clock{now: t0}}
	e.r = e.open()
	t.Cleanup(func() {
		if e.r != nil {
			e.r.Close()
		}
	})
	return e
}

// open opens the tracker as a new command does.
func (e *env) open() *store.Repo {
	e.t.Helper()
	r, err := store.Open(e.ctx, e.dir, "tester")
	if err != nil {
		e.t.Fatalf("open: %v", err)
	}
	r.Clock = e.clk.Now
	return r
}

// next ends the current command and starts the next: the Repo is closed
// and the tracker opened again, which is when a command notices files
// changed behind the cache.
func (e *env) next() {
	e.t.Helper()
	if e.r != nil {
		e.r.Close()
		e.r = nil
	}
	e.r = e.open()
}

func (e *env) issue(title string, in store.IssueInput) string {
	e.t.Helper()
	in.Title = title
	i, err := e.r.CreateIssue(e.ctx, in)
	if err != nil {
		e.t.Fatalf("create issue %q: %v", title, err)
	}
	return i.ID
}

func (e *env) spec(title string, in store.SpecInput) string {
	e.t.Helper()
	in.Title = title
	s, err := e.r.CreateSpec(e.ctx, in)
	if err != nil {
		e.t.Fatalf("create spec %q: %v", title, err)
	}
	return s.ID
}

func (e *env) link(from, to, typ string) {
	e.t.Helper()
	if _, err := e.r.Link(e.ctx, from, to, typ); err != nil {
		e.t.Fatalf("link %s %s %s: %v", from, typ, to, err)
	}
}

func (e *env) feedback(issue, spec string, line int, text string) tracker.Feedback {
	e.t.Helper()
	in := store.FeedbackInput{IssueID: issue, SpecID: spec, Content: "note on " + spec, Agent: "agent"}
	if text != "" {
		in.Text = &text
	} else {
		in.Line = &line
	}
	f, err := e.r.AddFeedback(e.ctx, in)
	if err != nil {
		e.t.Fatalf("add feedback: %v", err)
	}
	return f
}

func (e *env) showFeedback(id string) tracker.FeedbackDetail {
	e.t.Helper()
	d, err := e.r.ShowFeedback(e.ctx, id)
	if err != nil {
		e.t.Fatalf("show feedback %s: %v", id, err)
	}
	return d
}

// snapshot is every file under .sudocode except the cache and the lock.
func (e *env) snapshot() map[string]string {
	e.t.Helper()
	return trackertest.Snapshot(e.t, e.dir, store.CacheFile, store.LockFile)
}

// sameSnapshot reports the files that differ between two snapshots.
var sameSnapshot = trackertest.Same

// fileFeedback is feedback id as its shard file holds it.
func (e *env) fileFeedback(id string) tracker.Feedback {
	e.t.Helper()
	for _, f := range trackertest.ReadRecords[tracker.Feedback](e.t, e.dir) {
		if f.ID == id {
			return f
		}
	}
	e.t.Fatalf("feedback %s is not in the files", id)
	return tracker.Feedback{}
}

// wantCode checks err is a fault with code.
func wantCode(t *testing.T, what string, err error, code fault.Code) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error, want %s", what, code)
		return
	}
	if got := fault.CodeOf(err); got != code {
		t.Errorf("%s: error %q has code %s, want %s", what, err, got, code)
	}
}

// lines joins lines into a markdown body with a final newline.
func lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

// writeBody replaces a spec's markdown by hand, as an editor would, and
// moves its modification time on so that no clock granularity hides it.
func (e *env) writeBody(specID, body string) {
	e.t.Helper()
	d, err := e.r.ShowSpec(e.ctx, specID)
	if err != nil {
		e.t.Fatal(err)
	}
	p := filepath.Join(e.dir, filepath.FromSlash(d.FilePath))
	fi, err := os.Stat(p)
	if err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		e.t.Fatal(err)
	}
	bump(e.t, p, fi.ModTime())
}

// bump sets path's modification time to a second after old.
func bump(t *testing.T, path string, old time.Time) {
	t.Helper()
	later := old.Add(time.Second)
	if err := os.Chtimes(path, later, later); err != nil {
		t.Fatal(err)
	}
}

// shardOf is the path of the shard file holding record id of kind k.
func (e *env) shardOf(k tracker.RecordKind, id string) string {
	return filepath.Join(e.dir, filepath.FromSlash(tracker.ShardFile(k, id)))
}

// editRecord rewrites by hand the line of record id of kind k (see
// editLines); the other lines of its shard file stay as they are.
func (e *env) editRecord(k tracker.RecordKind, id string, edit func(line string) []string) {
	e.t.Helper()
	editLines(e.t, e.shardOf(k, id), func(_ int, l string) []string {
		if strings.HasPrefix(l, `{"id":"`+id+`"`) {
			return edit(l)
		}
		return []string{l}
	})
}

// addLine puts a record line by hand into the shard file of its id, in id
// order, as a pull that brought the record would.
func (e *env) addLine(k tracker.RecordKind, id, line string) {
	e.t.Helper()
	p := e.shardOf(k, id)
	data, _ := os.ReadFile(p)
	var out []string
	placed := false
	for _, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if l == "" {
			continue
		}
		if !placed && l > `{"id":"`+id+`"` {
			out, placed = append(out, line), true
		}
		out = append(out, l)
	}
	if !placed {
		out = append(out, line)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(strings.Join(out, "\n")+"\n"), 0o644); err != nil {
		e.t.Fatal(err)
	}
	bump(e.t, p, time.Now())
}

// shards lists the shard files of kind k present, as paths relative to
// the tracker directory.
func (e *env) shards(k tracker.RecordKind) []string {
	var out []string
	for _, f := range trackertest.ShardFiles(k) {
		if _, err := os.Stat(filepath.Join(e.dir, filepath.FromSlash(f))); err == nil {
			out = append(out, f)
		}
	}
	return out
}

// editFirst replaces old by new in the first line of kind k's files that
// holds old, and returns that file (relative) and the line's number.
func (e *env) editFirst(k tracker.RecordKind, old, new string) (file string, line int) {
	e.t.Helper()
	for _, f := range e.shards(k) {
		editLines(e.t, filepath.Join(e.dir, filepath.FromSlash(f)), func(n int, l string) []string {
			if line == 0 && strings.Contains(l, old) {
				l, line, file = strings.Replace(l, old, new, 1), n, f
			}
			return []string{l}
		})
		if line != 0 {
			return file, line
		}
	}
	e.t.Fatalf("no line of the %s files holds %s", k.Dir(), old)
	return "", 0
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
