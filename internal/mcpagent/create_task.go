package mcpagent

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/mcpx"
	"github.com/sudocode/sudocode/internal/orchestrator"
	"github.com/sudocode/sudocode/internal/orchestrator/agent"
)

type createIn struct {
	Tool         string         `json:"tool" jsonschema:"The agent to run: CLAUDECODE (Claude Code), GEMINI (Gemini CLI), CODEX (Codex), OPENCODE (OpenCode), or COMMAND (any command line, given as config.command)"`
	Description  string         `json:"description,omitempty" jsonschema:"Short description of the task; it also names the branch when none is given (required without issue_id; default with it: the issue's id and title)"`
	IssueID      string         `json:"issue_id,omitempty" jsonschema:"A tracker issue to work on: the prompt is assembled from it (title, description, the specs it implements with their open feedback, its parent, what it was discovered from, the closed blockers it builds on, the rulesets that apply), the issue goes in_progress with the agent as assignee, and merge_task closes it"`
	Instructions string         `json:"instructions,omitempty" jsonschema:"Detailed instructions for the agent, sent as its prompt (default: the description); with issue_id, added to the assembled prompt"`
	Branch       string         `json:"branch,omitempty" jsonschema:"Name of the new git branch for the task, e.g. feature/auth, or its full ref refs/heads/feature/auth (the same branch; other refs are refused); it must not exist yet (default: sudocode/<description>-<id>)"`
	Config       map[string]any `json:"config,omitempty" jsonschema:"Agent options: model; args (extra CLI flags); permission_mode (CLAUDECODE, default acceptEdits), approval_mode (GEMINI, default yolo), sandbox (CODEX, default workspace-write), agent (OPENCODE); command (COMMAND: the argv array, which gets the instructions on stdin and in SUDOCODE_TASK_INSTRUCTIONS); pass_env (names of further server environment variables the process may see, or prefixes ending in *, e.g. [\"AWS_*\"]: an agent gets only a neutral base (PATH, HOME, LANG, TERM, proxies …) and its own CLI's credentials, COMMAND none)"`
}

// createdResult is create_task's result.
type createdResult struct {
	TaskID string      `json:"taskId" jsonschema:"The task's id"`
	Task   taskSummary `json:"task" jsonschema:"The task as it stands"`
}

func (h *handlers) createTask() mcpx.Tool {
	return mcpx.NewTool(surface, &mcp.Tool{
		Name:  "create_task",
		Title: "Start an agent on a task",
		Description: "Create a task and start a coding agent on it, in its own git worktree (outside the repository) on a new branch from HEAD; " +
			"with issue_id, the task works on that tracker issue: its prompt is assembled from the tracker and the rulesets, and merge_task merges it and closes the issue; " +
			"the project's .sudocode/agent.json may copy files (such as .env) into the worktree and run a setup command before the agent. " +
			"Returns the taskId as soon as the agent runs; follow it with report_task or the task:// resources. " +
			"With a progress token the call instead stays open until the agent stops, sending progress notifications.",
		InputSchema: mcpx.Schema[createIn](nil, map[string][]string{"tool": agent.Kinds()}),
		Annotations: &mcp.ToolAnnotations{DestructiveHint: new(false), OpenWorldHint: new(true)},
	}, func(ctx context.Context, req *mcp.CallToolRequest, in createIn) (out response[createdResult], err error) {
		if _, err := agent.Lookup(in.Tool); err != nil {
			return out, invalid("%v", err)
		}
		if err := orchestrator.CheckCommandGrant(ctx, strings.TrimSpace(in.Tool)); err != nil {
			return out, err
		}
		if strings.TrimSpace(in.Description) == "" && strings.TrimSpace(in.IssueID) == "" {
			return out, invalid("description is required (or issue_id, to start from a tracker issue)")
		}
		var cfg json.RawMessage
		if in.Config != nil {
			b, err := json.Marshal(in.Config)
			if err != nil {
				return out, invalid("config must be a JSON object: %v", err)
			}
			cfg = b
		}
		tool := strings.ToUpper(strings.TrimSpace(in.Tool))
		var t orchestrator.Task
		if id := strings.TrimSpace(in.IssueID); id != "" {
			t, err = h.tasks.Start(ctx, orchestrator.StartInput{IssueID: id, Agent: tool, Description: in.Description,
				Instructions: in.Instructions, Branch: in.Branch, Config: cfg, Actor: mcpx.CallerFrom(ctx)})
		} else {
			t, err = h.tasks.Create(ctx, orchestrator.CreateInput{
				Agent: tool, Description: in.Description,
				Instructions: in.Instructions, Branch: in.Branch, Config: cfg, Actor: mcpx.CallerFrom(ctx),
			})
		}
		if err != nil {
			return out, err
		}
		if token := req.Params.GetProgressToken(); token != nil && t.Running() {
			t = h.follow(ctx, req.Session, token, t)
		}
		return taskResult(t, createdMessage(t)), nil
	})
}

func createdMessage(t orchestrator.Task) string {
	if t.Running() {
		return "Task " + t.ID + " created: " + t.Agent + " is working on branch " + t.Branch
	}
	return "Task " + t.ID + " created on branch " + t.Branch + "; it is " + string(t.Status)
}

// taskResult answers with t. A task that failed (its agent could not
// start, or stopped with an error while the call followed it) is an error
// result carrying the task and why, so the caller needs no other call.
func taskResult(t orchestrator.Task, message string) response[createdResult] {
	res := success(message, createdResult{TaskID: t.ID, Task: summarize(t)})
	if t.Status == orchestrator.StatusFailed && t.Error != nil {
		res.Status, res.Message = "error", "Task "+t.ID+" failed: "+t.Error.Type
		res.Error = &errorBody{Type: t.Error.Type}
		if t.Error.Details != nil {
			res.Error.Details = &errorDetails{FailureDetails: t.Error.Details}
		}
	}
	return res
}
