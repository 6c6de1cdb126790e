package orchestrator

import (
	"context"
	"encoding/json"
	"time"

	"github.com/sudocode/sudocode/internal/tracker"
)

// Report is report_task's summary of a task.
type Report struct {
	ID          string     `json:"id"`
	Agent       string     `json:"tool"`
	Description string     `json:"description"`
	Branch      string     `json:"branch"`
	BaseSHA     string     `json:"base_sha"`
	Status      Status     `json:"status"`
	State       string     `json:"state"` // Task.State: the status, or merged, conflicted, ended
	CreatedAt   time.Time  `json:"created_at"`
	StartedAt   *time.Time `json:"started_at,omitempty"`
	FinishedAt  *time.Time `json:"finished_at,omitempty"`
	// DurationMS is from the first start to the finish (or now while the
	// task runs or waits without a finish); 0 if it never started.
	DurationMS  int64  `json:"duration_ms"`
	FinalAnswer string `json:"final_answer"` // the agent's last message or completion text
	// Usage is tokens and cost of the last run and of the whole task,
	// per run for every CLI (session-wide figures after a resume are
	// turned into the run's own).
	Usage ReportUsage `json:"usage"`
	// PermissionDenials are the tool calls the agent's CLI refused in the
	// last run (its permission mode or sandbox).
	PermissionDenials []Denial `json:"permission_denials"`
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
	// IssueID is the tracker issue the task works on; Prompt is what the
	// agent was first told (for an issue task, the prompt assembled from
	// the issue, its specs, its context and the rulesets that apply).
	IssueID string `json:"issue_id,omitempty"`
	Prompt  string `json:"prompt"`
}

// ReportUsage is a report's tokens and cost.
type ReportUsage struct {
	Run  Usage `json:"run"`  // the last run's
	Task Usage `json:"task"` // every run's, added up
	// Issue adds up every task started on the report's issue, this one
	// and the earlier attempts, failed and cancelled ones too; absent for
	// a task started on no issue.
	Issue *tracker.TaskUsage `json:"issue,omitempty"`
}

// Report summarizes task id: its state, the last run's result and its
// changes read from git now.
func (o *Orchestrator) Report(ctx context.Context, id string) (Report, error) {
	return o.report(ctx, id, true)
}

// RecordedReport is Report with the changes as the end of the task's last
// run recorded them, not read from git again (reading a large worktree
// costs a sandboxed git or three): for a caller that waited for the run
// and reports it at once, and for a quick look at a finished task. A
// running task, or one whose run recorded nothing, is read live.
func (o *Orchestrator) RecordedReport(ctx context.Context, id string) (Report, error) {
	return o.report(ctx, id, false)
}

func (o *Orchestrator) report(ctx context.Context, id string, live bool) (Report, error) {
	t, err := o.store.Get(ctx, id)
	if err != nil {
		return Report{}, err
	}
	events, err := o.store.LastSeq(ctx, id) // sequence numbers run 1, 2, … without gaps
	if err != nil {
		return Report{}, err
	}
	r := Report{
		ID: t.ID, Agent: t.Agent, Description: t.Description, Branch: t.Branch, BaseSHA: t.BaseSHA,
		Status: t.Status, State: t.State(), CreatedAt: t.CreatedAt, StartedAt: t.StartedAt, FinishedAt: t.FinishedAt,
		FilesChanged: []string{}, Events: events, Error: t.Error, SessionID: t.SessionID,
		IssueID: t.IssueID, Prompt: t.Instructions,
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
	r.FinalAnswer = res.Message
	r.Usage = ReportUsage{Run: Usage{CostUSD: res.CostUSD, Tokens: res.Tokens}, Task: res.TaskUsage}
	if t.IssueID != "" {
		by, err := o.store.UsageByIssue(ctx, []string{t.IssueID})
		if err != nil {
			return Report{}, err
		}
		if u, ok := by[t.IssueID]; ok {
			r.Usage.Issue = &u
		}
	}
	r.PermissionDenials = res.PermissionDenials
	if r.PermissionDenials == nil {
		r.PermissionDenials = []Denial{}
	}
	r.Outcome = outcomeOf(t, res)
	var c changes
	ok := false
	if live || t.Running() || res.FilesChanged == nil || res.DiffStat == nil {
		c, ok, err = o.wt.taskChanges(ctx, t)
		ok = ok && err == nil
	}
	if ok {
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
