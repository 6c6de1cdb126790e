package app

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/orchestrator"
	"github.com/sudocode/sudocode/internal/orchestrator/agent"
	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

// MergeResult is what Merge did: the orchestrator's merge, and the issue
// it closed.
type MergeResult struct {
	orchestrator.MergeResult
	IssueID     string `json:"issue_id,omitempty"`
	CloseReason string `json:"close_reason,omitempty"`
}

// Merge merges task id's branch (orchestrator.Merge: refused as a whole,
// with the checkout and the tracker untouched, on a conflict, a failing
// check or uncommitted changes in the way) and closes the task's issue
// with the merge commit in its reason. A squash or merge commit without a
// message of the caller's names the issue.
func (l *Loop) Merge(ctx context.Context, id string, in orchestrator.MergeInput) (MergeResult, error) {
	t, err := l.orch.Get(ctx, id)
	if err != nil {
		return MergeResult{}, err
	}
	if in.Message == "" && t.IssueID != "" {
		in.Message = t.Description
		l.do(ctx, func(r *store.Repo) error { // without the issue, the task's description
			is, err := r.ShowIssue(ctx, t.IssueID)
			if err == nil {
				in.Message = fmt.Sprintf("%s (%s)\n\nCloses %s; made by sudocode task %s (%s).", is.Title, is.ID, is.ID, t.ID, agent.Name(t.Agent))
			}
			return err
		})
	}
	res, err := l.orch.Merge(ctx, id, in)
	out := MergeResult{MergeResult: res}
	if err != nil {
		return out, l.nothingToMerge(ctx, id, err)
	}
	if t.IssueID == "" {
		return out, nil
	}
	out.IssueID = t.IssueID
	out.CloseReason = fmt.Sprintf("Merged into %s as %s (task %s, %s)", res.Base, res.Commit, t.ID, res.Strategy)
	if err := l.closeMerged(ctx, t, out.CloseReason); err != nil {
		return out, fault.Wrap(fault.Internal, err, "merged as "+res.Commit+", but issue "+t.IssueID+" could not be closed; the next start of the tasks retries")
	}
	return out, nil
}

// closeMerged closes merged task t's issue with reason, once per task
// (orchestrator.DutyCloseMerged), unless it is closed already; a failed
// close is retried by the next loop to start.
func (l *Loop) closeMerged(ctx context.Context, t orchestrator.Task, reason string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	claimed, err := l.orch.ClaimIssueDuty(ctx, t.ID, orchestrator.DutyCloseMerged)
	if err != nil || !claimed {
		return err // not claimed: done already, or by another process now
	}
	err = l.do(ctx, func(r *store.Repo) error {
		is, err := r.ShowIssue(ctx, t.IssueID)
		if fault.CodeOf(err) == fault.NotFound || err == nil && is.Status == tracker.IssueClosed {
			return nil // deleted or closed meanwhile: nothing to close
		}
		if err == nil {
			_, err = r.CloseIssues(ctx, []string{t.IssueID}, reason)
		}
		return err
	})
	if derr := l.orch.IssueDutyDone(ctx, t.ID, orchestrator.DutyCloseMerged, err == nil); derr != nil {
		slog.Warn("cannot record that a merged task's issue is closed", "task", t.ID, "err", derr)
	}
	return err
}

// nothingToMerge turns a merge refused because task id, whose agent
// finished, changed nothing (its branch holds nothing new, or held no
// commit and was deleted) into what it is: a request that cannot succeed
// as asked, not a conflict or a missing branch, with what to do instead.
// Any other refusal (a failed or running task's among them) is err.
func (l *Loop) nothingToMerge(ctx context.Context, id string, err error) error {
	if !fault.Is(err, fault.Conflict) && !fault.Is(err, fault.NotFound) {
		return err
	}
	rep, rerr := l.orch.Report(ctx, id)
	finished := rep.Status == orchestrator.StatusWaiting || rep.Status == orchestrator.StatusCompleted
	if rerr != nil || !finished || rep.Commits > 0 || len(rep.FilesChanged) > 0 {
		return err
	}
	return fault.New(fault.Invalid, "nothing to merge: task %s made no change", rep.ID).
		WithHint("the agent made no change; end the task with end_task")
}
