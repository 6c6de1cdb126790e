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

// fileFeedback is feedback id as feedback.jsonl holds it.
func (e *env) fileFeedback(id string) tracker.Feedback {
	e.t.Helper()
	for _, f := range trackertest.ReadJSONL[tracker.Feedback](e.t, filepath.Join(e.dir, store.FeedbackFile)) {
		if f.ID == id {
			return f
		}
	}
	e.t.Fatalf("feedback %s is not in %s", id, store.FeedbackFile)
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
