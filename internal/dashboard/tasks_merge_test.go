package dashboard_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/dashboard"
	"github.com/sudocode/sudocode/internal/orchestrator"
	"github.com/sudocode/sudocode/internal/testkit"
	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

// readyHas is whether id is among the ready issues.
func readyHas(r tracker.ReadyResult, id string) bool {
	if r.Issues == nil {
		return false
	}
	for _, c := range *r.Issues {
		if c.ID == id {
			return true
		}
	}
	return false
}

// commitScript is a COMMAND agent that writes line to file and commits it.
func commitScript(file, line string) string {
	return `printf '%s\n' ` + shellQuote(line) + ` >> ` + file + `; git add ` + file +
		`; git -c user.name=t -c user.email=t@example.com commit -q -m work`
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// startOn starts a COMMAND agent running script on issue through the page's API.
func startOn(t *testing.T, c *http.Client, url, issue, script string) orchestrator.Task {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"tool": "COMMAND", "issue_id": issue, "config": map[string]any{"command": []string{"sh", "-c", script}}})
	code, out := send(t, c, "POST", url+"/api/tasks", string(body), map[string]string{"Authorization": "Bearer w"})
	if code != http.StatusCreated {
		t.Fatalf("start on %s: %d %s", issue, code, out)
	}
	var task orchestrator.Task
	json.Unmarshal([]byte(out), &task)
	return task
}

func (f *fixture) issueStatus(t *testing.T, id string) tracker.IssueStatus {
	t.Helper()
	is, err := f.repo.ShowIssue(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return is.Status
}

// TestTaskStartOnIssue: an agent started from the page on an issue gets
// the prompt the loop assembles from the tracker (as create_task with
// issue_id), the task records its issue, and the issue goes in progress.
func TestTaskStartOnIssue(t *testing.T) {
	f := newFixture(t)
	o := f.openTasks(t)
	ts, _ := serveWithTasks(t, f, o, dashboard.Options{WriteToken: "w"})
	task := startOn(t, ts.Client(), ts.URL, f.open, "true")
	if task.IssueID != f.open {
		t.Errorf("the task's issue_id is %q, want %s", task.IssueID, f.open)
	}
	if !strings.HasPrefix(task.Instructions, "# Issue "+f.open+": Design the token store") || !strings.Contains(task.Instructions, "Keep **tokens** safe") {
		t.Errorf("the prompt is not the loop's:\n%s", task.Instructions)
	}
	if got := f.issueStatus(t, f.open); got != tracker.IssueInProgress {
		t.Errorf("the issue is %s, want in_progress", got)
	}
}

// TestTaskMerge: merging from the page is the loop's merge: without the
// token it is refused and nothing changes; with it the branch lands on
// the checkout, the issue closes and its dependent becomes ready; a
// merge that conflicts is refused naming the files, the checkout as it was.
func TestTaskMerge(t *testing.T) {
	f := newFixture(t)
	o := f.openTasks(t)
	ts, _ := serveWithTasks(t, f, o, dashboard.Options{WriteToken: "w"})
	c := ts.Client()
	auth := map[string]string{"Authorization": "Bearer w"}

	task := startOn(t, c, ts.URL, f.open, commitScript("notes.txt", "from the agent"))
	waitStatus(t, o, task.ID, orchestrator.StatusCompleted, orchestrator.StatusWaiting)
	head := testkit.Git(t, f.dir, "rev-parse", "HEAD")
	if code, _ := send(t, c, "POST", ts.URL+"/api/tasks/"+task.ID+"/merge", `{}`, nil); code != http.StatusUnauthorized {
		t.Errorf("merge without the token: %d, want 401", code)
	}
	if code, _ := send(t, c, "POST", ts.URL+"/api/tasks/"+task.ID+"/merge", `{"strategy":"octopus"}`, auth); code != http.StatusBadRequest {
		t.Errorf("merge with an unknown strategy: %d, want 400", code)
	}
	if now := testkit.Git(t, f.dir, "rev-parse", "HEAD"); now != head || f.issueStatus(t, f.open) == tracker.IssueClosed {
		t.Fatal("a refused merge changed the checkout or closed the issue")
	}
	code, out := send(t, c, "POST", ts.URL+"/api/tasks/"+task.ID+"/merge", `{}`, auth)
	if code != http.StatusOK {
		t.Fatalf("merge: %d %s", code, out)
	}
	var res orchestrator.MergeResult
	json.Unmarshal([]byte(out), &res)
	if res.IssueID != f.open || res.Commit == "" {
		t.Errorf("merge result: %s", out)
	}
	if b, _ := os.ReadFile(filepath.Join(f.dir, "notes.txt")); string(b) != "from the agent\n" {
		t.Errorf("the checkout's notes.txt after the merge: %q", b)
	}
	if got := f.issueStatus(t, f.open); got != tracker.IssueClosed {
		t.Errorf("the merged issue is %s, want closed", got)
	}
	ready, err := f.repo.Ready(context.Background(), store.ReadyOptions{Limit: 100, Issues: true})
	if err != nil {
		t.Fatal(err)
	}
	if !readyHas(ready, f.waiting) {
		t.Errorf("%s, which the merged issue blocked, is not ready", f.waiting)
	}

	// The dependent's agent edits the same line the checkout changes meanwhile.
	second := startOn(t, c, ts.URL, f.waiting, `echo agent > notes.txt; git add notes.txt; git -c user.name=t -c user.email=t@example.com commit -q -m work`)
	waitStatus(t, o, second.ID, orchestrator.StatusCompleted, orchestrator.StatusWaiting)
	if err := os.WriteFile(filepath.Join(f.dir, "notes.txt"), []byte("user\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	testkit.Git(t, f.dir, "commit", "-q", "-am", "the user's own change")
	head = testkit.Git(t, f.dir, "rev-parse", "HEAD")
	code, out = send(t, c, "POST", ts.URL+"/api/tasks/"+second.ID+"/merge", `{}`, auth)
	if code != http.StatusConflict || !strings.Contains(out, "notes.txt") {
		t.Errorf("a conflicting merge: %d %s, want 409 naming notes.txt", code, out)
	}
	if now := testkit.Git(t, f.dir, "rev-parse", "HEAD"); now != head || f.issueStatus(t, f.waiting) == tracker.IssueClosed {
		t.Error("a conflicting merge changed the checkout or closed the issue")
	}
	if b, _ := os.ReadFile(filepath.Join(f.dir, "notes.txt")); string(b) != "user\n" {
		t.Errorf("the checkout's notes.txt after a refused merge: %q", b)
	}
}

// TestRunReady: the page's run-ready is the loop's: without the token
// nothing starts; with it, limit 1 works the ready issue of highest
// priority to a merge, which closes it.
func TestRunReady(t *testing.T) {
	f := newFixture(t)
	o := f.openTasks(t)
	ts, _ := serveWithTasks(t, f, o, dashboard.Options{WriteToken: "w"})
	c := ts.Client()
	body, _ := json.Marshal(map[string]any{"tool": "COMMAND", "limit": 1, "config": map[string]any{"command": []string{"sh", "-c", commitScript("ran.txt", "ran")}}})
	head := testkit.Git(t, f.dir, "rev-parse", "HEAD")
	if code, _ := send(t, c, "POST", ts.URL+"/api/run-ready", string(body), nil); code != http.StatusUnauthorized {
		t.Errorf("run-ready without the token: %d, want 401", code)
	}
	if list, _ := o.List(context.Background()); len(list) != 0 || testkit.Git(t, f.dir, "rev-parse", "HEAD") != head {
		t.Fatalf("a refused run started %d tasks or moved the checkout", len(list))
	}
	if code, _ := send(t, c, "POST", ts.URL+"/api/run-ready", `{"tool":"NOPE"}`, map[string]string{"Authorization": "Bearer w"}); code != http.StatusBadRequest {
		t.Errorf("run-ready with an unknown agent: %d, want 400", code)
	}
	code, out := send(t, c, "POST", ts.URL+"/api/run-ready", string(body), map[string]string{"Authorization": "Bearer w"})
	if code != http.StatusOK {
		t.Fatalf("run-ready: %d %s", code, out)
	}
	var res orchestrator.RunResult
	json.Unmarshal([]byte(out), &res)
	if len(res.Items) != 1 || res.Items[0].IssueID != f.open || res.Items[0].Outcome != orchestrator.IssueMerged {
		t.Fatalf("run: %s", out)
	}
	if got := f.issueStatus(t, f.open); got != tracker.IssueClosed {
		t.Errorf("the worked issue is %s, want closed", got)
	}
	if !fileExists(filepath.Join(f.dir, "ran.txt")) {
		t.Error("the run's work is not on the checkout")
	}
}
