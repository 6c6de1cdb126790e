package mcpagent

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/mcpx"
	"github.com/sudocode/sudocode/internal/orchestrator"
)

type updateIn struct {
	TaskID       string `json:"taskId" jsonschema:"Task identifier, as create_task returned it"`
	Status       string `json:"status,omitempty" jsonschema:"New status, set by hand on a task whose agent is not running"`
	Log          string `json:"log,omitempty" jsonschema:"A log message to append to the task's log"`
	Instructions string `json:"instructions,omitempty" jsonschema:"New instructions: the agent runs again in the task's worktree, continuing its session when the task is waiting"`
	Result       any    `json:"result,omitempty" jsonschema:"Result data to record on the task (any JSON)"`
}

func (h *handlers) updateTask() mcpx.Tool {
	return mcpx.NewTool(surface, &mcp.Tool{
		Name:  "update_task",
		Title: "Update a task or continue its agent",
		Description: "Update a task: append a log message, record a status or result, or give new instructions. " +
			"New instructions on a waiting task continue the same agent session (the CLI's resume), in the same worktree; " +
			"with a progress token the call then stays open until the agent stops.",
		InputSchema: mcpx.Schema[updateIn](nil, map[string][]string{"status": {"in_progress", "waiting", "completed", "failed"}}),
		Annotations: &mcp.ToolAnnotations{DestructiveHint: new(false), OpenWorldHint: new(true)},
	}, func(ctx context.Context, req *mcp.CallToolRequest, in updateIn) (out response[createdResult], err error) {
		if in.Status == "" && in.Log == "" && in.Instructions == "" && in.Result == nil {
			return out, invalid("nothing to update: give status, log, instructions or result")
		}
		up := orchestrator.UpdateInput{Status: orchestrator.Status(in.Status), Log: in.Log, Instructions: in.Instructions}
		if in.Result != nil {
			b, err := json.Marshal(in.Result)
			if err != nil {
				return out, invalid("result is not JSON: %v", err)
			}
			up.Result = b
		}
		t, err := h.tasks.Update(ctx, in.TaskID, up) // a review is recorded on the task's issue
		if err != nil {
			return out, err
		}
		msg := "Task " + t.ID + " updated; it is " + string(t.Status)
		if in.Instructions != "" {
			if token := req.Params.GetProgressToken(); token != nil && t.Running() {
				t = h.follow(ctx, req.Session, token, t)
			}
			msg = continuedMessage(t)
		}
		return taskResult(t, msg), nil
	})
}

func continuedMessage(t orchestrator.Task) string {
	if t.Running() {
		if t.SessionID != "" {
			return "Task " + t.ID + " continues session " + t.SessionID + " with the new instructions"
		}
		return "Task " + t.ID + " runs again with the new instructions"
	}
	return "Task " + t.ID + " ran the new instructions; it is " + string(t.Status)
}
