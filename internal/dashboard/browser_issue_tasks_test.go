package dashboard_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/sudocode/sudocode/internal/orchestrator"
	"github.com/sudocode/sudocode/internal/testkit"
)

// TestBrowserIssueTasks: an issue's page lists its tasks, each with a link
// to the task's page, its agent as --agent names it, its state in words
// and a time; the list follows a task as it changes.
func TestBrowserIssueTasks(t *testing.T) {
	b := newBrowser(t)
	f := newFixture(t)
	base, srv := startServe(t, f)
	if srv.Tasks == nil {
		t.Fatalf("tasks unavailable: %s", srv.TasksUnavailable)
	}
	ctx := context.Background()
	cfg, _ := json.Marshal(map[string]any{"command": []string{"sleep", "600"}})
	task, err := srv.Tasks.Start(ctx, orchestrator.StartInput{IssueID: f.open, Agent: "COMMAND", Description: "Sleep", Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, testkit.Scale(time.Minute), "the agent to run", func() bool {
		cur, err := srv.Tasks.Get(ctx, task.ID)
		return err == nil && cur.Status == orchestrator.StatusInProgress
	})
	b.do(t, chromedp.Navigate(base+"/?token="+srv.OpenToken+"#/issue/"+f.open))
	row := `document.querySelector('#issue-tasks li[data-id="` + task.ID + `"]')`
	b.waitFor(t, "the running task on the issue's page", `(() => { const r = `+row+`; return !!r && r.querySelector('.badge').textContent === 'running' })()`)
	if got := eval[string](t, b, row+`.querySelector('.mono').textContent + ' ' + `+row+`.querySelector('a').getAttribute('href')`); got != "command #/task/"+task.ID {
		t.Errorf("the task's agent and link: %q", got)
	}
	if when := eval[string](t, b, row+`.querySelector('.muted.small').textContent`); when == "" {
		t.Error("the task's time is not shown")
	}
	if _, err := srv.Tasks.End(ctx, task.ID, orchestrator.EndInput{}); err != nil {
		t.Fatal(err)
	}
	b.waitFor(t, "the task stopped", `(() => { const r = `+row+`; return !!r && r.querySelector('.badge').textContent === 'stopped' })()`)
	b.screenshot(t, "issue-tasks")
	b.click(t, `#issue-tasks li[data-id="`+task.ID+`"] a`)
	b.waitFor(t, "the task's page", `location.hash === '#/task/`+task.ID+`' && document.getElementById('task-head') !== null`)
}
