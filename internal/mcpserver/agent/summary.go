package agent

import (
	"time"

	"github.com/sudocode/sudocode/internal/orchestrator"
)

// taskSummary is a task as lists and tool results show it: what it is and
// where it stands, without its instructions or log.
type taskSummary struct {
	ID           string              `json:"id"`
	Tool         string              `json:"tool"`
	Description  string              `json:"description"`
	Status       orchestrator.Status `json:"status"`
	Branch       string              `json:"branch"`
	WorktreePath string              `json:"worktree_path,omitempty"`
	SessionID    string              `json:"session_id,omitempty"`
	CreatedAt    time.Time           `json:"created_at"`
	UpdatedAt    time.Time           `json:"updated_at"`
}

func summarize(t orchestrator.Task) taskSummary {
	return taskSummary{
		ID: t.ID, Tool: t.Tool, Description: t.Description, Status: t.Status, Branch: t.Branch,
		WorktreePath: t.WorktreePath, SessionID: t.SessionID, CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt,
	}
}

func summarizeAll(ts []orchestrator.Task) []taskSummary {
	out := make([]taskSummary, len(ts))
	for i, t := range ts {
		out[i] = summarize(t)
	}
	return out
}
