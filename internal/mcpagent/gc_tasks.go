package mcpagent

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/mcpx"
	"github.com/sudocode/sudocode/internal/orchestrator"
	"github.com/sudocode/sudocode/internal/plural"
)

type gcIn struct{}

func (h *handlers) gcTasks() mcpx.Tool {
	return mcpx.NewTool(surface, &mcp.Tool{
		Name:  "gc_tasks",
		Title: "Collect finished tasks' worktrees",
		Description: "Remove the worktrees of finished tasks (completed, failed or cancelled; never a waiting or running one) " +
			"and delete their branches when these hold no commit of their own (a branch with commits is kept). " +
			"A worktree with uncommitted or untracked files is never touched: it is listed under kept, to be ended with end_task. " +
			"On a server shared by a team, only the caller's own tasks (an admin's: everyone's). The server also does this at start.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: new(true), IdempotentHint: true, OpenWorldHint: new(false)},
	}, func(ctx context.Context, _ *mcp.CallToolRequest, _ gcIn) (out response[orchestrator.GCResult], err error) {
		res, err := h.tasks.GC(ctx)
		if err != nil {
			return out, err
		}
		return success(fmt.Sprintf("Removed %s and %s; kept %d with uncommitted work",
			plural.Count(len(res.Removed), "worktree", "worktrees"), plural.Count(len(res.BranchesDeleted), "branch", "branches"), len(res.Kept)), res), nil
	})
}
