package dashboard_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/dashboard"
	"github.com/sudocode/sudocode/internal/orchestrator"
	"github.com/sudocode/sudocode/internal/testkit"
)

// issueTasks is the tasks of /api/issues/{id}.
func issueTasks(t *testing.T, c *http.Client, url, id string) []dashboard.IssueTask {
	t.Helper()
	var is struct {
		Tasks []dashboard.IssueTask `json:"tasks"`
	}
	if code := getJSON(t, c, url+"/api/issues/"+id, &is); code != 200 {
		t.Fatalf("issue %s: %d", id, code)
	}
	return is.Tasks
}

// waitState waits until task id reads state (orchestrator.Task.State).
func waitState(t *testing.T, o *orchestrator.Orchestrator, id, state string) {
	t.Helper()
	testkit.WaitFor(t, testkit.Scale(time.Minute), "task "+id+" to read "+state, func() bool {
		task, err := o.Get(context.Background(), id)
		return err == nil && task.State() == state
	})
}

// TestIssueListsItsTasks: an issue's page is told its tasks, oldest
// first, each as a reviewer tells them apart: the agent as --agent names
// it, its state in words (running, waiting for review, stopped, ended,
// failed, merged), and when it last changed.
func TestIssueListsItsTasks(t *testing.T) {
	f := newFixture(t)
	o := f.openTasks(t)
	ts, _ := serveWithTasks(t, f, o, dashboard.Options{WriteToken: "w"})
	c := ts.Client()
	auth := map[string]string{"Authorization": "Bearer w"}
	stop := func(id string) {
		t.Helper()
		if code, out := send(t, c, "POST", ts.URL+"/api/tasks/"+id+"/stop", `{}`, auth); code != 200 {
			t.Fatalf("stop %s: %d %s", id, code, out)
		}
	}

	failed := startOn(t, c, ts.URL, f.open, "echo broken >&2; exit 3")
	waitState(t, o, failed.ID, "failed")
	done := startOn(t, c, ts.URL, f.open, "true")
	waitState(t, o, done.ID, "completed")
	running := startOn(t, c, ts.URL, f.open, "sleep 600")
	waitState(t, o, running.ID, "in_progress")

	got := issueTasks(t, c, ts.URL, f.open)
	want := []struct{ id, state, words string }{
		{failed.ID, "failed", "failed"}, {done.ID, "completed", "waiting for review"}, {running.ID, "in_progress", "running"},
	}
	if len(got) != len(want) {
		t.Fatalf("tasks %+v, want %d", got, len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.ID != w.id || g.Agent != "command" || g.State != w.state || g.StateText != w.words || g.UpdatedAt.IsZero() || g.Branch == "" {
			t.Errorf("task %d: %+v, want %s %s (%q) by command, with a time and a branch", i, g, w.id, w.state, w.words)
		}
	}

	stop(running.ID)
	stop(done.ID)
	merged := startOn(t, c, ts.URL, f.open, commitScript("notes.txt", "from the agent"))
	waitState(t, o, merged.ID, "completed")
	if code, out := send(t, c, "POST", ts.URL+"/api/tasks/"+merged.ID+"/merge", `{}`, auth); code != 200 {
		t.Fatalf("merge: %d %s", code, out)
	}
	words := map[string]string{}
	for _, g := range issueTasks(t, c, ts.URL, f.open) {
		words[g.ID] = g.StateText
	}
	for id, w := range map[string]string{failed.ID: "failed", done.ID: "ended", running.ID: "stopped", merged.ID: "merged"} {
		if words[id] != w {
			t.Errorf("task %s reads %q, want %q (all: %v)", id, words[id], w, words)
		}
	}
}
