package dashboard_test

import (
	"testing"

	"github.com/sudocode/sudocode/internal/dashboard"
	"github.com/sudocode/sudocode/internal/orchestrator"
)

// TestFileChangeCountsAgree: the file_change entry of a task's log, as the
// page's API serves it, says "1 file changed" and "1 commit", not "1 files
// changed" and "1 commits".
func TestFileChangeCountsAgree(t *testing.T) {
	f := newFixture(t)
	o := f.openTasks(t)
	ts, _ := serveWithTasks(t, f, o, dashboard.Options{})
	task := createCommandTask(t, o, `echo hello > f.txt; git add f.txt; git -c user.name=t -c user.email=t@example.com commit -q -m add-f`)
	waitStatus(t, o, task.ID, orchestrator.StatusCompleted, orchestrator.StatusWaiting, orchestrator.StatusFailed)
	var logs dashboard.TaskLogs
	if code := getJSON(t, ts.Client(), ts.URL+"/api/tasks/"+task.ID+"/logs", &logs); code != 200 {
		t.Fatalf("logs: %d", code)
	}
	var text string
	for _, e := range logs.Events {
		if e.Event.Kind == "file_change" {
			text = e.Event.Text
		}
	}
	if want := "1 file changed, 1 insertion(+), 0 deletions(-), 1 commit"; text != want {
		t.Errorf("file_change text %q, want %q", text, want)
	}
}
