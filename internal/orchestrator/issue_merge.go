package orchestrator

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/orchestrator/agent"
)

// Merge merges task id's branch (mergeBranch: refused as a whole, with
// the checkout and the tracker untouched, on a conflict, a failing check
// or uncommitted changes in the way) and closes the task's issue with the
// merge commit in its reason. A squash or merge commit without a message
// of the caller's names the issue.
func (o *Orchestrator) Merge(ctx context.Context, id string, in MergeInput) (MergeResult, error) {
	t, err := o.store.Get(ctx, id)
	if err != nil {
		return MergeResult{}, err
	}
	follows := o.issues != nil && t.IssueID != ""
	if in.Message == "" && follows {
		in.Message = t.Description // without the issue, the task's description
		if title, err := o.issues.Title(ctx, t.IssueID); err == nil {
			in.Message = fmt.Sprintf("%s (%s)\n\nCloses %s; made by sudocode task %s (%s).", title, t.IssueID, t.IssueID, t.ID, agent.Name(t.Agent))
		}
	}
	res, err := o.mergeBranch(ctx, id, in)
	if err != nil {
		return res, o.nothingToMerge(ctx, id, err)
	}
	if !follows {
		return res, nil
	}
	res.IssueID = t.IssueID
	res.CloseReason = fmt.Sprintf("Merged into %s as %s (task %s, %s)", res.Base, res.Commit, t.ID, res.Strategy)
	if err := o.closeMerged(ctx, t, res.CloseReason); err != nil {
		return res, fault.Wrap(fault.Internal, err, "merged as "+res.Commit+", but issue "+t.IssueID+" could not be closed; the next start of the tasks retries")
	}
	return res, nil
}

// closeMerged closes merged task t's issue with reason, once per task
// (DutyCloseMerged), unless it is closed already; a failed close is
// retried by the next orchestrator to open.
func (o *Orchestrator) closeMerged(ctx context.Context, t Task, reason string) error {
	o.issueMu.Lock()
	defer o.issueMu.Unlock()
	claimed, err := o.store.ClaimIssueDuty(ctx, t.ID, DutyCloseMerged)
	if err != nil || !claimed {
		return err // not claimed: done already, or by another process now
	}
	err = o.issues.Close(ctx, t.IssueID, reason)
	if err == nil {
		o.taskEvent(ctx, t, "merged")
	}
	if derr := o.store.IssueDutyDone(ctx, t.ID, DutyCloseMerged, err == nil); derr != nil {
		slog.Warn("cannot record that a merged task's issue is closed", "task", t.ID, "err", derr)
	}
	return err
}

// nothingToMerge turns a merge refused because task id, whose agent
// finished, changed nothing (its branch holds nothing new, or held no
// commit and was deleted) into what it is: a request that cannot succeed
// as asked, not a conflict or a missing branch, with what to do instead.
// Any other refusal (a failed or running task's among them) is err.
func (o *Orchestrator) nothingToMerge(ctx context.Context, id string, err error) error {
	if !fault.Is(err, fault.Conflict) && !fault.Is(err, fault.NotFound) {
		return err
	}
	rep, rerr := o.Report(ctx, id)
	finished := rep.Status == StatusWaiting || rep.Status == StatusCompleted
	if rerr != nil || !finished || rep.Commits > 0 || len(rep.FilesChanged) > 0 {
		return err
	}
	return fault.New(fault.Invalid, "nothing to merge: task %s made no change", rep.ID).
		WithHint("the agent made no change; end the task with end_task")
}
