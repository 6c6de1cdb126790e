package app

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/orchestrator"
	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

// Update changes task id (orchestrator.Update). New instructions are a
// review: the orchestrator keeps it with the run it started, and it is
// recorded on the task's issue, which is in progress again (unless it was
// closed meanwhile), so that the issue keeps the history of what was
// asked of the agent. The record is a duty (orchestrator.DutyNoteReview):
// if it fails, or this process dies before it, the next loop to start
// makes it, once.
func (l *Loop) Update(ctx context.Context, id string, in orchestrator.UpdateInput) (orchestrator.Task, error) {
	t, err := l.orch.Update(ctx, id, in)
	if err != nil || in.Instructions == "" || t.IssueID == "" {
		return t, err
	}
	if err := l.noteReviews(ctx, t.ID); err != nil {
		return t, fault.Wrap(fault.Internal, err, "the review went to task "+t.ID+", but issue "+t.IssueID+" could not record it; the next start of the tasks retries")
	}
	return t, nil
}

// noteReviews records on their issues the reviews they do not hold yet,
// in the order they were sent: taskID's, or every task's when it is "".
func (l *Loop) noteReviews(ctx context.Context, taskID string) error {
	reviews, err := l.orch.UndoneReviews(ctx, taskID)
	if err != nil {
		return err
	}
	var first error
	for _, r := range reviews {
		if err := l.noteReview(ctx, r); err != nil {
			slog.Warn("cannot record a review on its issue; the next start retries", "task", r.TaskID, "review", r.Seq, "err", err)
			if first == nil {
				first = err
			}
		}
	}
	return first
}

// noteReview appends review r to its task's issue, once.
func (l *Loop) noteReview(ctx context.Context, r orchestrator.Review) error {
	duty := orchestrator.DutyNoteReview(r.Seq)
	l.mu.Lock()
	defer l.mu.Unlock()
	claimed, err := l.orch.ClaimIssueDuty(ctx, r.TaskID, duty)
	if err != nil || !claimed {
		return err // not claimed: done already, or by another process now
	}
	t, err := l.orch.Get(ctx, r.TaskID)
	if err == nil {
		err = l.do(ctx, func(repo *store.Repo) error { return recordReview(ctx, repo, t, r) })
	}
	if derr := l.orch.IssueDutyDone(ctx, r.TaskID, duty, err == nil); derr != nil {
		slog.Warn("cannot record that a review is on its issue", "task", r.TaskID, "review", r.Seq, "err", derr)
	}
	return err
}

// recordReview appends r to t's issue, quoted, and puts the issue in
// progress with t's agent as assignee: the agent works on it again. A
// closed issue stays closed (a merge or a person closed it after the
// review was sent); a deleted one holds nothing.
func recordReview(ctx context.Context, r *store.Repo, t orchestrator.Task, rv orchestrator.Review) error {
	is, err := r.ShowIssue(ctx, t.IssueID)
	if fault.CodeOf(err) == fault.NotFound {
		return nil
	}
	if err != nil {
		return err
	}
	quoted := "> " + strings.ReplaceAll(strings.TrimSpace(rv.Instructions), "\n", "\n> ")
	desc := strings.TrimRight(is.Description, "\n") +
		fmt.Sprintf("\n\n---\nReview sent to agent task %s at %s:\n\n%s", t.ID, rv.SentAt.UTC().Format(time.RFC3339), quoted)
	patch := store.IssuePatch{Description: &desc}
	if is.Status != tracker.IssueClosed {
		status, who := string(tracker.IssueInProgress), Assignee(t)
		patch.Status, patch.Assignee = &status, &who
	}
	_, err = r.UpdateIssue(ctx, is.ID, patch)
	return err
}
