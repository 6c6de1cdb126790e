package mcpagent_test

import (
	"strings"
	"testing"
)

// merge_task of a task that changed nothing answers what the CLI's exit 2
// says: a request that cannot succeed as asked (validation_error), not a
// conflict, with a message saying there is nothing to merge and a hint
// naming end_task.
func TestMergeTaskOfNoChange(t *testing.T) {
	f := newFixture(t)
	c, _ := f.onIssue("Change nothing", "true")
	f.wait(c.TaskID)
	r := f.call("merge_task", map[string]any{"taskId": c.TaskID})
	if r.Status != "error" || r.Error.Type != "validation_error" {
		t.Fatalf("merge_task of a task with no change: %+v", r)
	}
	if !strings.Contains(r.Message, "nothing to merge") || !strings.Contains(r.Message, c.TaskID) {
		t.Errorf("message %q", r.Message)
	}
	if d := string(r.Error.Details); !strings.Contains(d, "end_task") {
		t.Errorf("details %s: no hint naming end_task", d)
	}
}
