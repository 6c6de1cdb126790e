package app

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/sudocode/sudocode/internal/orchestrator"
	"github.com/sudocode/sudocode/internal/orchestrator/agent"
	"github.com/sudocode/sudocode/internal/tracker"
)

// End ends task id (orchestrator.End) and hands its issue back: an issue
// still in progress with the task's agent as assignee goes back to open,
// unassigned, with a line saying the task was ended, so that it is ready
// again rather than waiting on an agent that is gone. An issue the task
// no longer holds (closed, taken over, or already reopened by a recorded
// failure) is left as it is. The hand-back is a duty kept in the task
// store (orchestrator.DutyReleaseEnded): if this process dies before it,
// the next loop to start does it.
func (l *Loop) End(ctx context.Context, id string, in orchestrator.EndInput) (orchestrator.EndResult, error) {
	res, err := l.orch.End(ctx, id, in)
	if err != nil {
		return res, err
	}
	if res.Task.IssueID != "" {
		l.release(ctx, res.Task, branchFate(res.Task, res.Removal))
	}
	return res, nil
}

// branchFate says what became of t's branch when its worktree was removed.
func branchFate(t orchestrator.Task, rm orchestrator.Removal) string {
	branch := "branch " + t.Branch + " kept"
	switch {
	case rm.BranchDeleted:
		branch = "branch " + t.Branch + " deleted"
	case rm.SavedCommit != "":
		branch += ", its uncommitted work saved as " + rm.SavedCommit
	}
	return branch
}

// release returns t's issue to open as End says, once per task; branch
// says what became of its branch.
func (l *Loop) release(ctx context.Context, t orchestrator.Task, branch string) {
	claimed, err := l.orch.ClaimIssueDuty(ctx, t.ID, orchestrator.DutyReleaseEnded)
	if err != nil {
		slog.Warn("cannot hand back the issue of an ended task", "task", t.ID, "issue", t.IssueID, "err", err)
	}
	if !claimed {
		return
	}
	what := "was ended"
	switch t.Status {
	case orchestrator.StatusCancelled:
		what = "was stopped while its agent ran"
	case orchestrator.StatusFailed:
		what = "was ended as failed"
	}
	note := fmt.Sprintf("%s (%s) %s at %s without being merged; %s. The issue is open again.",
		failureMark(t), agent.Name(t.Agent), what, time.Now().UTC().Format(time.RFC3339), branch)
	err = l.reopen(ctx, t, func(is tracker.IssueDetail) bool {
		return is.Status == tracker.IssueInProgress && is.Assignee != nil && *is.Assignee == Assignee(t)
	}, note)
	if err != nil {
		slog.Warn("the task ended, but its issue could not be handed back; the next start retries", "task", t.ID, "issue", t.IssueID, "err", err)
	}
	if err := l.orch.IssueDutyDone(ctx, t.ID, orchestrator.DutyReleaseEnded, err == nil); err != nil {
		slog.Warn("cannot record that an ended task's issue is handed back", "task", t.ID, "err", err)
	}
}
