package mcpagent_test

import (
	"strings"
	"testing"
)

// task://{id}/logs counts its entries in words that agree with the count:
// an agent that printed one line and waits has one entry.
func TestLogsHeaderCountsAgree(t *testing.T) {
	f := newFixture(t)
	c := f.command("Print a line", "echo a-line; sleep 600", nil)
	var text string
	f.until("the agent's line in its log", func() bool {
		text, _ = f.read("task://" + c.TaskID + "/logs")
		return strings.Contains(text, ": a-line")
	})
	header, _, _ := strings.Cut(text, "\n")
	if !strings.HasSuffix(header, ": 1 log entry") {
		t.Errorf("header %q, want it to end in \": 1 log entry\":\n%s", header, text)
	}
	f.mustSucceed("end_task", map[string]any{"taskId": c.TaskID}, nil)
}
