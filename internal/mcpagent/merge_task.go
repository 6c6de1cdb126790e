package mcpagent

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/mcpx"
	"github.com/sudocode/sudocode/internal/orchestrator"
)

type mergeIn struct {
	TaskID     string `json:"taskId" jsonschema:"Task identifier"`
	Strategy   string `json:"strategy,omitempty" jsonschema:"squash (one commit on the base; the default, or the project's merge.strategy), ff (fast-forward only) or merge (a merge commit)"`
	Message    string `json:"message,omitempty" jsonschema:"The commit message of a squash or merge commit (default: the issue's title and id, or the task's description)"`
	KeepBranch *bool  `json:"keepBranch,omitempty" jsonschema:"Keep the task's branch after the merge (default: the project's merge.keep_branch, else false)"`
}

// mergedResult is merge_task's result.
type mergedResult struct {
	TaskID      string               `json:"taskId" jsonschema:"The task's id"`
	Task        taskSummary          `json:"task" jsonschema:"The task, completed"`
	Strategy    string               `json:"strategy" jsonschema:"squash, ff or merge"`
	Base        string               `json:"base" jsonschema:"The branch merged into: the one the user's checkout has checked out"`
	Commit      string               `json:"commit" jsonschema:"The base's new tip"`
	Files       []string             `json:"files" jsonschema:"The files the merge changed"`
	Removal     orchestrator.Removal `json:"removal" jsonschema:"The worktree removed, and whether the branch was deleted"`
	IssueID     string               `json:"issue_id,omitempty" jsonschema:"The issue the merge closed"`
	CloseReason string               `json:"close_reason,omitempty" jsonschema:"The issue's close reason, naming the merge commit"`
}

func (h *handlers) mergeTask() mcpx.Tool {
	return mcpx.NewTool(surface, &mcp.Tool{
		Name:  "merge_task",
		Title: "Merge a task's branch",
		Description: "Merge a finished task's branch into the branch the user's checkout has checked out (squash by default, ff or merge), " +
			"then complete the task, remove its worktree and delete its branch (unless kept), and close its issue with the merge commit in the reason. " +
			"The merge is computed first and applied all or nothing: it is refused, changing nothing, when it conflicts (the conflicting files are listed), " +
			"when the project's merge.check command (in .sudocode/agent.json) fails on the merged tree, or when the checkout has uncommitted changes to files it changes. " +
			"A finished task that made no change has nothing to merge: that is a validation_error (end the task with end_task), not a conflict.",
		InputSchema: mcpx.Schema[mergeIn](nil, map[string][]string{"strategy": {orchestrator.MergeSquash, orchestrator.MergeFF, orchestrator.MergeCommit}}),
		Annotations: &mcp.ToolAnnotations{DestructiveHint: new(true), OpenWorldHint: new(false)},
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in mergeIn) (out response[mergedResult], err error) {
		res, err := h.tasks.Merge(ctx, in.TaskID, orchestrator.MergeInput{Strategy: in.Strategy, Message: in.Message, KeepBranch: in.KeepBranch})
		if err != nil {
			return out, err
		}
		return success(mergedMessage(res), mergedResult{
			TaskID: res.Task.ID, Task: summarize(res.Task), Strategy: res.Strategy, Base: res.Base, Commit: res.Commit,
			Files: nonNil(res.Files), Removal: res.Removal, IssueID: res.IssueID, CloseReason: res.CloseReason,
		}), nil
	})
}

func mergedMessage(r orchestrator.MergeResult) string {
	msg := "Task " + r.Task.ID + " merged into " + r.Base + " as " + r.Commit + " (" + r.Strategy + ")"
	if r.IssueID != "" {
		msg += "; issue " + r.IssueID + " closed"
	}
	return msg
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
