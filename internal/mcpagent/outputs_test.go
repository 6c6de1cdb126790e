package mcpagent_test

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestEveryToolMatchesItsOutputSchema calls every tool on real tasks (real
// git worktrees and processes) and checks each structured result against
// the output schema the tool publishes (the fixture checks every call):
// a success, an unknown task, and a task that failed, whose
// error carries the task. A field renamed in a result type alone fails here.
func TestEveryToolMatchesItsOutputSchema(t *testing.T) {
	f := newFixture(t)
	done := f.command("Say hi", `echo hi`, nil)
	f.wait(done.TaskID)
	f.mustSucceed("report_task", map[string]any{"taskId": done.TaskID}, nil)
	f.mustSucceed("update_task", map[string]any{"taskId": done.TaskID, "log": "checked", "result": map[string]any{"ok": true}}, nil)
	f.mustSucceed("list_tasks", map[string]any{"limit": 1}, nil)
	f.mustSucceed("end_task", map[string]any{"taskId": done.TaskID, "keepBranch": false}, nil)
	f.mustSucceed("gc_tasks", nil, nil)
	failing := &mcp.CallToolParams{Name: "create_task", Arguments: map[string]any{"tool": "COMMAND", "description": "Fails",
		"config": map[string]any{"command": []string{"sh", "-c", "echo broken >&2; exit 3"}}}}
	failing.SetProgressToken("tok-fail") // followed to its end: the error carries the failed task
	if r := f.callWith(failing); r.Status != "error" || r.Error.Type != "agent_exit" || len(r.Result) == 0 {
		t.Errorf("a task that failed: %+v", r)
	}
	if r := f.call("report_task", map[string]any{"taskId": "nope"}); r.Status != "error" || r.Error.Type != "not_found" {
		t.Errorf("an unknown task: %+v", r)
	}
	issue := f.tracked("Greet")
	var c created
	commit := map[string]any{"command": []string{"sh", "-c", "echo hi > hi.txt && git add hi.txt && git commit -qm hi"}}
	f.mustSucceed("create_task", map[string]any{"tool": "COMMAND", "issue_id": issue, "config": commit}, &c)
	f.wait(c.TaskID)
	f.mustSucceed("merge_task", map[string]any{"taskId": c.TaskID}, nil)
	f.tracked("Greet again")
	ran := f.mustSucceed("run_ready", map[string]any{"tool": "COMMAND", "config": map[string]any{"command": []string{"sh", "-c", "echo again >> hi.txt && git commit -qam again"}}}, nil)
	if want := "Worked 1 issue: 1 merged, 0 failed, 0 not merged, 0 not started"; ran.Message != want {
		t.Errorf("run_ready says %q, want %q", ran.Message, want)
	}
	if missing := f.schemas.Unchecked(); len(missing) > 0 {
		t.Errorf("tools never checked: %v", missing)
	}
}
