package mcpagent

import (
	"context"
	"encoding/json"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/mcpx"
	"github.com/sudocode/sudocode/internal/orchestrator"
)

type endIn struct {
	TaskID     string  `json:"taskId" jsonschema:"Task identifier"`
	Status     *string `json:"status,omitempty" jsonschema:"Final status: completed, failed or cancelled. Omitted or null: the natural one (cancelled for a running task, completed for a waiting one, otherwise unchanged)"`
	Result     any     `json:"result,omitempty" jsonschema:"Result data to record (any JSON); an object keeps the usage the task's runs reported (task_usage) beside its own keys"`
	KeepBranch *bool   `json:"keepBranch,omitempty" jsonschema:"Keep the task's branch, with uncommitted work saved on it as a commit (default true); false deletes the branch and discards the work"`
}

// endResult is end_task's result.
type endResult struct {
	TaskID  string               `json:"taskId" jsonschema:"The task's id"`
	Task    taskSummary          `json:"task" jsonschema:"The task as it ended"`
	Removal orchestrator.Removal `json:"removal" jsonschema:"What was removed and what was kept"`
}

func (h *handlers) endTask() mcpx.Tool {
	return mcpx.NewTool(surface, &mcp.Tool{
		Name:  "end_task",
		Title: "End a task",
		Description: "End a task: stop its agent if it runs (its whole process group), run the project's cleanup command, remove its worktree, and keep its branch " +
			"(uncommitted work is committed onto it first) unless keepBranch is false. Ending an ended task changes nothing. " +
			"status is completed, failed or cancelled; omitted or null, a running task ends cancelled and a waiting one completed. " +
			"A task's issue that it still holds goes back to open, unassigned, with a line saying the task was ended.",
		InputSchema: endSchema(),
		Annotations: &mcp.ToolAnnotations{DestructiveHint: new(true), IdempotentHint: true, OpenWorldHint: new(false)},
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in endIn) (out response[endResult], err error) {
		end := orchestrator.EndInput{KeepBranch: in.KeepBranch == nil || *in.KeepBranch}
		if in.Status != nil { // null is absent
			st, err := orchestrator.ParseEndStatus(*in.Status)
			if err != nil {
				return out, err
			}
			end.Status = st
		}
		if in.Result != nil {
			b, err := json.Marshal(in.Result)
			if err != nil {
				return out, invalid("result is not JSON: %v", err)
			}
			end.Result = b
		}
		res, err := h.tasks.End(ctx, in.TaskID, end) // its issue is open again
		if err != nil {
			return out, err
		}
		return success(endedMessage(res), endResult{TaskID: res.Task.ID, Task: summarize(res.Task), Removal: res.Removal}), nil
	})
}

// endSchema is endIn's schema; keepBranch is a pointer only to tell
// "absent" (true) from false, so it is published as a plain boolean, and
// status as a string that may be null.
func endSchema() *jsonschema.Schema {
	statuses := make([]string, len(orchestrator.EndStatuses))
	for i, st := range orchestrator.EndStatuses {
		statuses[i] = string(st)
	}
	s := mcpx.Schema[endIn](map[string]any{"keepBranch": true}, map[string][]string{"status": statuses})
	s.Properties["keepBranch"].Types, s.Properties["keepBranch"].Type = nil, "boolean"
	st := s.Properties["status"]
	st.Types, st.Type, st.Enum = []string{"null", "string"}, "", append(st.Enum, nil)
	return s
}

func endedMessage(r orchestrator.EndResult) string {
	msg := "Task " + r.Task.ID + " ended (" + string(r.Task.Status) + ")"
	switch {
	case r.Removal.BranchDeleted:
		msg += "; branch " + r.Task.Branch + " deleted"
	case r.Removal.SavedCommit != "":
		msg += "; uncommitted work saved on branch " + r.Task.Branch
	default:
		msg += "; branch " + r.Task.Branch + " kept"
	}
	return msg
}
