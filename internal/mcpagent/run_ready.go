package mcpagent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/mcpx"
	"github.com/sudocode/sudocode/internal/orchestrator"
	"github.com/sudocode/sudocode/internal/orchestrator/agent"
	"github.com/sudocode/sudocode/internal/plural"
)

type runReadyIn struct {
	Tool     string         `json:"tool" jsonschema:"The agent to run on each issue (as create_task)"`
	Config   map[string]any `json:"config,omitempty" jsonschema:"The agent's options (as create_task)"`
	Limit    int            `json:"limit,omitempty" jsonschema:"Start at most this many issues in all"`
	Parallel int            `json:"parallel,omitempty" jsonschema:"Run at most this many agents at a time"`
	Priority *int           `json:"priority,omitempty" jsonschema:"Only ready issues of this priority, 0 (highest) to 4"`
	Assignee string         `json:"assignee,omitempty" jsonschema:"Only ready issues assigned to this person"`
	Strategy string         `json:"strategy,omitempty" jsonschema:"How each finished task is merged: squash (default), ff or merge"`
}

func (h *handlers) runReady() mcpx.Tool {
	return mcpx.NewTool(surface, &mcp.Tool{
		Name:  "run_ready",
		Title: "Work the ready issues",
		Description: "Start agents on the tracker's ready issues (highest priority, then oldest; filters as ready), at most parallel at a time and limit in all, " +
			"and merge each task that finishes (as merge_task, closing its issue), so that the issues it blocked become ready and start in turn. " +
			"A task that fails leaves its issue open with the failure recorded, and what it blocks is not started. " +
			"Returns when nothing is ready and nothing runs, with each issue's outcome: merged, failed, not_merged (the merge was refused; the task waits) or not_started.",
		InputSchema: mcpx.Schema[runReadyIn](map[string]any{"limit": 10, "parallel": 1}, map[string][]string{
			"tool": agent.Kinds(), "strategy": {orchestrator.MergeSquash, orchestrator.MergeFF, orchestrator.MergeCommit}}),
		Annotations: &mcp.ToolAnnotations{DestructiveHint: new(true), OpenWorldHint: new(true)},
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in runReadyIn) (out response[orchestrator.RunResult], err error) {
		if _, err := agent.Lookup(in.Tool); err != nil {
			return out, invalid("%v", err)
		}
		if err := orchestrator.CheckCommandGrant(ctx, strings.TrimSpace(in.Tool)); err != nil {
			return out, err
		}
		if in.Limit < 0 || in.Parallel < 0 {
			return out, invalid("limit and parallel must not be negative")
		}
		if _, err := orchestrator.ParseMergeStrategy(in.Strategy); err != nil {
			return out, err
		}
		var cfg json.RawMessage
		if in.Config != nil {
			if cfg, err = json.Marshal(in.Config); err != nil {
				return out, invalid("config must be a JSON object: %v", err)
			}
		}
		res, err := h.tasks.RunReady(ctx, orchestrator.RunInput{
			Agent: strings.ToUpper(strings.TrimSpace(in.Tool)), Config: cfg, Limit: in.Limit, Parallel: in.Parallel,
			Priority: in.Priority, Assignee: in.Assignee, Merge: orchestrator.MergeInput{Strategy: in.Strategy},
		})
		if err != nil {
			return out, err
		}
		return success(runMessage(res), res), nil
	})
}

func runMessage(r orchestrator.RunResult) string {
	n := map[string]int{}
	for _, it := range r.Items {
		n[it.Outcome]++
	}
	if len(r.Items) == 0 {
		return "No issue is ready"
	}
	return fmt.Sprintf("Worked %s: %d merged, %d failed, %d not merged, %d not started",
		plural.Count(len(r.Items), "issue", "issues"), n[orchestrator.IssueMerged], n[orchestrator.IssueFailed], n[orchestrator.IssueNotMerged], n[orchestrator.IssueNotStarted])
}
