package app_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/app"
	"github.com/sudocode/sudocode/internal/orchestrator"
	"github.com/sudocode/sudocode/internal/orchestrator/agent"
	"github.com/sudocode/sudocode/internal/rulesets"
	"github.com/sudocode/sudocode/internal/rulesets/sqlitestore"
	"github.com/sudocode/sudocode/internal/testkit"
	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/store"
	"github.com/sudocode/sudocode/internal/tracker/trackertest"
)

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// world is a git repository with a committed tracker (a spec and issues
// made by the test), a ruleset library, and the project's tasks, which
// follow their issues.
type world struct {
	t     *testing.T
	repo  string
	tr    *store.Repo
	rules rulesets.Store
	st    *orchestrator.Store
	orch  *orchestrator.Orchestrator
}

func newWorld(t *testing.T) *world {
	t.Helper()
	ctx := context.Background()
	repo := t.TempDir()
	testkit.Git(t, repo, "init", "-q", "-b", "main")
	testkit.Git(t, repo, "config", "user.name", "Test")
	testkit.Git(t, repo, "config", "user.email", "test@example.com")
	writeFile(t, filepath.Join(repo, "README"), "hello\n")
	if _, err := store.Init(repo, "app"); err != nil {
		t.Fatal(err)
	}
	tr, err := store.Open(ctx, filepath.Join(repo, ".sudocode"), "test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.Close() })
	rules, err := sqlitestore.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rules.Close() })
	st, err := orchestrator.OpenStore(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	w := &world{t: t, repo: repo, tr: tr, rules: rules, st: st}
	w.orch = w.open(w.rules)
	return w
}

// open opens the project's tasks over the world's task store, as another
// process would: following their issues when rules is not nil (a nil
// Store: no ruleset library), bare otherwise (a process that dies before
// it does what a transition owes an issue). The test's end closes it.
func (w *world) open(rules rulesets.Store) *orchestrator.Orchestrator {
	o := orchestrator.New(w.st, lookup, orchestrator.Options{Repo: w.repo, Grace: time.Second, NoPool: true})
	if rules != nil {
		tr := app.NewTracker(w.repo, "test")
		o.FollowIssues(app.TaskIssues(tr, rules, "test"))
		w.t.Cleanup(func() { tr.Close() })
	}
	w.t.Cleanup(o.Close)
	return o
}

// lookup resolves the real agents.
func lookup(kind string) (agent.Adapter, bool) {
	a, err := agent.Lookup(kind)
	return a, err == nil
}

// reopen is the next process to open the project's tasks, which does the
// duties to issues that no process did, and closes once they are done.
func (w *world) reopen() {
	w.t.Helper()
	o := orchestrator.New(w.st, lookup, orchestrator.Options{Repo: w.repo, NoPool: true})
	tr := app.NewTracker(w.repo, "test")
	defer tr.Close()
	o.FollowIssues(app.TaskIssues(tr, nil, "test"))
	o.Close() // waits for the duties it found
}

// commit commits everything in the checkout (the tracker's files too).
func (w *world) commit(msg string) {
	testkit.Git(w.t, w.repo, "add", "-A")
	testkit.Git(w.t, w.repo, "commit", "-qm", msg)
}

// command is a COMMAND config running script with sh -c.
func command(script string) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"command": []string{"/bin/sh", "-c", script}})
	return b
}

// snapshot is the user's checkout as a refusal must leave it: HEAD, the
// status, and the bytes of the tracker's files.
func (w *world) snapshot() string {
	var b strings.Builder
	b.WriteString(testkit.Git(w.t, w.repo, "rev-parse", "HEAD") + "\n" + testkit.Git(w.t, w.repo, "status", "--porcelain", "--untracked-files=all") + "\n")
	files := trackertest.Snapshot(w.t, filepath.Join(w.repo, store.DirName), store.CacheFile, store.LockFile)
	b.WriteString(trackertest.KindFiles[tracker.IssueRecord](files))
	b.WriteString(trackertest.KindFiles[tracker.SpecRecord](files))
	b.WriteString(trackertest.KindFiles[tracker.Feedback](files))
	for _, f := range []string{"README", "greeting.txt"} {
		data, _ := os.ReadFile(filepath.Join(w.repo, f))
		b.WriteString(f + ":" + string(data))
	}
	return b.String()
}

func (w *world) issue(id string) string {
	w.t.Helper()
	w.tr.Recheck()
	d, err := w.tr.ShowIssue(context.Background(), id)
	if err != nil {
		w.t.Fatal(err)
	}
	b, _ := json.Marshal(d)
	return string(b)
}

// taskEvents is what the history of issue id says of its agent tasks:
// "what task-id", oldest first.
func (w *world) taskEvents(id string) []string {
	w.t.Helper()
	w.tr.Recheck()
	d, err := w.tr.ShowIssue(context.Background(), id)
	if err != nil {
		w.t.Fatal(err)
	}
	var out []string
	for _, h := range d.History {
		if h.Field == tracker.ChangeTask {
			out = append(out, *h.To+" "+*h.TaskID)
		}
	}
	return out
}

func (w *world) wait(id string) orchestrator.Task {
	w.t.Helper()
	return w.waitOn(w.orch, id)
}

// waitOn waits for task id's run by o to end.
func (w *world) waitOn(o *orchestrator.Orchestrator, id string) orchestrator.Task {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(time.Minute))
	defer cancel()
	if err := o.Wait(ctx, id); err != nil {
		w.t.Fatalf("waiting for task %s to finish: %v", id, err)
	}
	task, err := o.Get(ctx, id)
	if err != nil {
		w.t.Fatal(err)
	}
	return task
}
