package orchestrator

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/sudocode/sudocode/internal/orchestrator/agent"
	"github.com/sudocode/sudocode/internal/tracker"
)

// End ends task id (endTask) and hands its issue back: an issue still in
// progress with the task's agent as assignee goes back to open,
// unassigned, with a line saying the task was ended, so that it is ready
// again rather than waiting on an agent that is gone. An issue the task
// no longer holds (closed, taken over, or already reopened by a recorded
// failure) is left as it is. The hand-back is a duty kept in the task
// store (DutyReleaseEnded): if this process dies before it, the next
// orchestrator to open does it.
func (o *Orchestrator) End(ctx context.Context, id string, in EndInput) (EndResult, error) {
	res, err := o.endTask(ctx, id, in)
	if err != nil {
		return res, err
	}
	if o.issues != nil && res.Task.IssueID != "" {
		o.handBackEnded(ctx, res.Task, branchFate(res.Task, res.Removal))
	}
	return res, nil
}

// branchFate says what became of t's branch when its worktree was removed.
func branchFate(t Task, rm Removal) string {
	branch := "branch " + t.Branch + " kept"
	switch {
	case rm.BranchDeleted:
		branch = "branch " + t.Branch + " deleted"
	case rm.SavedCommit != "":
		branch += ", its uncommitted work saved as " + rm.SavedCommit
	}
	return branch
}

// handBackEnded returns t's issue to open as End says, once per task;
// branch says what became of its branch.
func (o *Orchestrator) handBackEnded(ctx context.Context, t Task, branch string) {
	claimed, err := o.store.ClaimIssueDuty(ctx, t.ID, DutyReleaseEnded)
	if err != nil {
		slog.Warn("cannot hand back the issue of an ended task", "task", t.ID, "issue", t.IssueID, "err", err)
	}
	if !claimed {
		return
	}
	what := "was ended"
	switch t.Status {
	case StatusCancelled:
		what = "was stopped while its agent ran"
	case StatusFailed:
		what = "was ended as failed"
	}
	note := fmt.Sprintf("%s (%s) %s at %s without being merged; %s. The issue is open again.",
		failureMark(t), agent.Name(t.Agent), what, time.Now().UTC().Format(time.RFC3339), branch)
	o.issueMu.Lock()
	err = o.issues.HandBack(ctx, t.IssueID, func(is IssueState) bool {
		return is.Status == tracker.IssueInProgress && is.Assignee != nil && *is.Assignee == Assignee(t)
	}, note)
	switch t.Status {
	case StatusFailed: // its failure is in the history already (noteFailure)
	case StatusCancelled:
		o.taskEvent(ctx, t, "cancelled")
	default:
		o.taskEvent(ctx, t, "ended")
	}
	o.issueMu.Unlock()
	if err != nil {
		slog.Warn("the task ended, but its issue could not be handed back; the next start retries", "task", t.ID, "issue", t.IssueID, "err", err)
	}
	if err := o.store.IssueDutyDone(ctx, t.ID, DutyReleaseEnded, err == nil); err != nil {
		slog.Warn("cannot record that an ended task's issue is handed back", "task", t.ID, "err", err)
	}
}
