package orchestrator

import (
	"context"
	"encoding/json"
	"time"

	"github.com/sudocode/sudocode/internal/orchestrator/agent"
)

// Report is report_task's summary of a task.
type Report struct {
	ID          string     `json:"id"`
	Tool        string     `json:"tool"`
	Description string     `json:"description"`
	Branch      string     `json:"branch"`
	BaseSHA     string     `json:"base_sha"`
	Status      Status     `json:"status"`
	CreatedAt   time.Time  `json:"created_at"`
	StartedAt   *time.Time `json:"started_at,omitempty"`
	FinishedAt  *time.Time `json:"finished_at,omitempty"`
	// DurationMS is from the first start to the finish (or now while the
	// task runs or waits without a finish); 0 if it never started.
	DurationMS  int64         `json:"duration_ms"`
	FinalAnswer string        `json:"final_answer"` // the agent's last message or completion text
	CostUSD     *float64      `json:"cost_usd,omitempty"`
	Tokens      *agent.Tokens `json:"tokens,omitempty"`
	// Outcome is the last run's: succeeded, noop, failed or cancelled; ""
	// while running.
	Outcome      string   `json:"outcome"`
	FilesChanged []string `json:"files_changed"`
	// DiffStat is the branch tip plus uncommitted work against BaseSHA:
	// live from the worktree while it exists, else from the branch while
	// it exists, else as stored at the last run's end.
	DiffStat  DiffStat   `json:"diff_stat"`
	Commits   int        `json:"commits"`
	Events    int64      `json:"events"` // log events so far
	Error     *TaskError `json:"error,omitempty"`
	SessionID string     `json:"session_id,omitempty"`
}

// Report summarizes task id: its state, the last run's result and its
// changes read from git now.
func (o *Orchestrator) Report(ctx context.Context, id string) (Report, error) {
	t, err := o.store.Get(ctx, id)
	if err != nil {
		return Report{}, err
	}
	events, err := o.store.LastSeq(ctx, id) // sequence numbers run 1, 2, … without gaps
	if err != nil {
		return Report{}, err
	}
	r := Report{
		ID: t.ID, Tool: t.Tool, Description: t.Description, Branch: t.Branch, BaseSHA: t.BaseSHA,
		Status: t.Status, CreatedAt: t.CreatedAt, StartedAt: t.StartedAt, FinishedAt: t.FinishedAt,
		FilesChanged: []string{}, Events: events, Error: t.Error, SessionID: t.SessionID,
	}
	if t.StartedAt != nil {
		end := time.Now()
		if t.FinishedAt != nil {
			end = *t.FinishedAt
		}
		r.DurationMS = end.Sub(*t.StartedAt).Milliseconds()
	}
	// A result replaced through update_task or end_task may not be a run's.
	var res runResult
	_ = json.Unmarshal(t.Result, &res)
	r.FinalAnswer, r.CostUSD, r.Tokens = res.Message, res.CostUSD, res.Tokens
	r.Outcome = outcomeOf(t, res)
	if c, ok, err := o.wt.taskChanges(ctx, t); err == nil && ok {
		r.FilesChanged, r.DiffStat, r.Commits = c.Files, c.Stat, c.Commits
	} else {
		r.Commits = res.Commits
		if res.FilesChanged != nil {
			r.FilesChanged = res.FilesChanged
		}
		if res.DiffStat != nil {
			r.DiffStat = *res.DiffStat
		}
	}
	return r, nil
}

// outcomeOf is the last run's outcome as recorded, else as t's status
// implies.
func outcomeOf(t Task, res runResult) string {
	switch t.Status {
	case StatusPending, StatusInProgress:
		return ""
	}
	if res.Outcome != "" {
		return res.Outcome
	}
	switch t.Status {
	case StatusWaiting, StatusCompleted:
		return OutcomeSucceeded
	case StatusCancelled:
		return OutcomeCancelled
	}
	return OutcomeFailed
}
