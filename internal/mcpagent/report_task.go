package mcpagent

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/mcpx"
	"github.com/sudocode/sudocode/internal/orchestrator"
)

type reportIn struct {
	TaskID string `json:"taskId" jsonschema:"Task identifier"`
}

func (h *handlers) reportTask() mcpx.Tool {
	return mcpx.NewTool(surface, &mcp.Tool{
		Name:  "report_task",
		Title: "Report on a task",
		Description: "Report on a task: status and timings, the agent's final answer (its last message), " +
			"usage (tokens and cost when the CLI reports them, for the last run, for the whole task and, for a task of an issue, for every task started on the issue, failed and cancelled attempts included), " +
			"permission_denials (tool calls the agent's CLI refused), " +
			"the files changed (read from git) and a diff stat of its branch against the commit it started from.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(false)},
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in reportIn) (out response[orchestrator.Report], err error) {
		if _, err := h.owned(ctx, in.TaskID); err != nil {
			return out, err
		}
		rep, err := h.tasks.Report(ctx, in.TaskID)
		if err != nil {
			return out, err
		}
		return success("Report for task "+rep.ID+" ("+string(rep.Status)+")", rep), nil
	})
}
