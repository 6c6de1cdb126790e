package mcpagent

import (
	"time"

	"github.com/sudocode/sudocode/internal/orchestrator"
)

// taskSummary is a task as lists and tool results show it: what it is and
// where it stands, without its instructions or log.
type taskSummary struct {
	ID           string              `json:"id" jsonschema:"The task's id"`
	Tool         string              `json:"tool" jsonschema:"The agent: CLAUDECODE, GEMINI, CODEX, OPENCODE or COMMAND"`
	Description  string              `json:"description" jsonschema:"What the task is"`
	Status       orchestrator.Status `json:"status" jsonschema:"pending, in_progress, waiting, completed, failed or cancelled"`
	State        string              `json:"state" jsonschema:"How the task reads: its status, except merged (its branch was merged), conflicted (its last merge was refused for a conflict) and ended (completed by end_task without a merge)"`
	Branch       string              `json:"branch" jsonschema:"The task's git branch"`
	WorktreePath string              `json:"worktree_path,omitempty" jsonschema:"Where the agent works, while the worktree exists"`
	SessionID    string              `json:"session_id,omitempty" jsonschema:"The agent CLI's session, which new instructions continue"`
	IssueID      string              `json:"issue_id,omitempty" jsonschema:"The tracker issue the task works on"`
	CreatedAt    time.Time           `json:"created_at" jsonschema:"When the task was created (RFC 3339)"`
	UpdatedAt    time.Time           `json:"updated_at" jsonschema:"When it last changed (RFC 3339)"`
}

func summarize(t orchestrator.Task) taskSummary {
	return taskSummary{
		ID: t.ID, Tool: t.Agent, Description: t.Description, Status: t.Status, State: t.State(), Branch: t.Branch,
		WorktreePath: t.WorktreePath, SessionID: t.SessionID, IssueID: t.IssueID, CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt,
	}
}

func summarizeAll(ts []orchestrator.Task) []taskSummary {
	out := make([]taskSummary, len(ts))
	for i, t := range ts {
		out[i] = summarize(t)
	}
	return out
}
