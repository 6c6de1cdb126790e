package dashboard_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/dashboard"
	"github.com/sudocode/sudocode/internal/orchestrator"
	"github.com/sudocode/sudocode/internal/testkit"
)

// waitStatus waits until the task is in one of the statuses. It reads the
// task again each time the orchestrator announces a change, as the page
// does, so it also shows that every change it waits for is announced.
func waitStatus(t *testing.T, o *orchestrator.Orchestrator, id string, want ...orchestrator.Status) orchestrator.Task {
	t.Helper()
	changed := make(chan struct{}, 1)
	unsubscribe := o.Subscribe(func(orchestrator.Change) {
		select {
		case changed <- struct{}{}:
		default: // a change is already pending: the next read sees this one too
		}
	})
	defer unsubscribe()
	ctx := testkit.Context(t, 20*time.Second)
	for {
		task, err := o.Get(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if slices.Contains(want, task.Status) {
			return task
		}
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatalf("waited %v for task %s to be one of %v; it is %s (on a slow machine, set %s=4)",
				testkit.Scale(20*time.Second), id, want, task.Status, testkit.SlowEnv)
		}
	}
}

// TestTaskActions: the page lists the agents it may start (with what to
// install for the others), starts a task through the orchestrator, reads
// its report, sends a follow-up to the same task, and stops one.
func TestTaskActions(t *testing.T) {
	f := newFixture(t)
	o := f.openTasks(t)
	ts, _ := serveWithTasks(t, f, o, dashboard.Options{WriteToken: "w"})
	c := ts.Client()
	auth := map[string]string{"Authorization": "Bearer w"}
	var agents dashboard.AgentList
	if code := getJSON(t, c, ts.URL+"/api/agents", &agents); code != 200 {
		t.Fatalf("agents: %d", code)
	}
	kinds := map[string]dashboard.AgentKind{}
	for _, k := range agents.Agents {
		kinds[k.Kind] = k
	}
	if !kinds["COMMAND"].Available {
		t.Errorf("COMMAND is not offered: %+v", agents)
	}
	for _, k := range agents.Agents {
		if !k.Available && k.Problem == "" {
			t.Errorf("%s is unavailable and the page is not told why", k.Kind)
		}
	}
	script := `read line; echo "got: $line"; echo "$SUDOCODE_TASK_INSTRUCTIONS" > said.txt`
	body, _ := json.Marshal(map[string]any{"tool": "COMMAND", "description": "Echo the instructions", "instructions": "first",
		"config": map[string]any{"command": []string{"sh", "-c", script}}, "issue_id": f.open})
	code, out := send(t, c, "POST", ts.URL+"/api/tasks", string(body), auth)
	if code != http.StatusCreated {
		t.Fatalf("start: %d %s", code, out)
	}
	var task orchestrator.Task
	json.Unmarshal([]byte(out), &task)
	if task.IssueID != f.open {
		t.Errorf("the task does not record its issue: %q", task.IssueID)
	}
	waitStatus(t, o, task.ID, orchestrator.StatusCompleted, orchestrator.StatusWaiting)
	var rep orchestrator.Report
	if code := getJSON(t, c, ts.URL+"/api/tasks/"+task.ID+"/report", &rep); code != 200 || rep.Outcome != "succeeded" {
		t.Errorf("report: %d %+v", code, rep)
	}
	if code, out := send(t, c, "POST", ts.URL+"/api/tasks/"+task.ID+"/follow-up", `{"instructions":"second"}`, auth); code != 200 {
		t.Fatalf("follow-up: %d %s", code, out)
	}
	after := waitStatus(t, o, task.ID, orchestrator.StatusCompleted, orchestrator.StatusWaiting)
	if is, err := f.repo.ShowIssue(context.Background(), f.open); err != nil || !strings.Contains(is.Description, "Review sent to agent task "+task.ID) {
		t.Errorf("the issue does not keep the follow-up, as update_task's does: %v\n%s", err, is.Description)
	}
	if after.Instructions != "second" {
		t.Errorf("instructions after the follow-up: %q", after.Instructions)
	}
	if said, err := os.ReadFile(filepath.Join(after.WorktreePath, "said.txt")); err != nil || strings.TrimSpace(string(said)) != "second" {
		t.Errorf("the agent did not get the follow-up: %q %v", said, err)
	}
	if code, _ := send(t, c, "POST", ts.URL+"/api/tasks/"+task.ID+"/follow-up", `{"instructions":""}`, auth); code != 400 {
		t.Errorf("an empty follow-up: %d, want 400", code)
	}

	// Stop a running one.
	long, _ := json.Marshal(map[string]any{"tool": "COMMAND", "description": "Sleep", "config": map[string]any{"command": []string{"sleep", "30"}}})
	code, out = send(t, c, "POST", ts.URL+"/api/tasks", string(long), auth)
	if code != http.StatusCreated {
		t.Fatalf("start: %d %s", code, out)
	}
	json.Unmarshal([]byte(out), &task)
	waitStatus(t, o, task.ID, orchestrator.StatusInProgress)
	if code, out := send(t, c, "POST", ts.URL+"/api/tasks/"+task.ID+"/stop", `{}`, auth); code != 200 {
		t.Fatalf("stop: %d %s", code, out)
	}
	waitStatus(t, o, task.ID, orchestrator.StatusCancelled)
	if code, _ := send(t, c, "POST", ts.URL+"/api/tasks", string(long), nil); code != 401 {
		t.Errorf("start without the token: %d", code)
	}
}
