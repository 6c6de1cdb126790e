package orchestrator

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/sudocode/sudocode/internal/fault"
)

// Update changes task id (updateTask). New instructions are a review: the
// task store keeps it with the run it started, and it is recorded on the
// task's issue, which is in progress again (unless it was closed
// meanwhile), so that the issue keeps the history of what was asked of
// the agent. The record is a duty (DutyNoteReview): if it fails, or this
// process dies before it, the next orchestrator to open makes it, once.
func (o *Orchestrator) Update(ctx context.Context, id string, in UpdateInput) (Task, error) {
	t, err := o.updateTask(ctx, id, in)
	if err != nil || in.Instructions == "" || t.IssueID == "" || o.issues == nil {
		return t, err
	}
	if err := o.noteReviews(ctx, t.ID); err != nil {
		return t, fault.Wrap(fault.Internal, err, "the review went to task "+t.ID+", but issue "+t.IssueID+" could not record it; the next start of the tasks retries")
	}
	return t, nil
}

// noteReviews records on their issues the reviews they do not hold yet,
// in the order they were sent: taskID's, or every task's when it is "".
func (o *Orchestrator) noteReviews(ctx context.Context, taskID string) error {
	reviews, err := o.store.UndoneReviews(ctx, taskID)
	if err != nil {
		return err
	}
	var first error
	for _, r := range reviews {
		if err := o.noteReview(ctx, r); err != nil {
			slog.Warn("cannot record a review on its issue; the next start retries", "task", r.TaskID, "review", r.Seq, "err", err)
			if first == nil {
				first = err
			}
		}
	}
	return first
}

// noteReview appends review r to its task's issue, quoted, once, and puts
// the issue in progress with the task's agent as assignee: the agent
// works on it again. A closed issue stays closed (a merge or a person
// closed it after the review was sent); a deleted one holds nothing.
func (o *Orchestrator) noteReview(ctx context.Context, r Review) error {
	duty := DutyNoteReview(r.Seq)
	o.issueMu.Lock()
	defer o.issueMu.Unlock()
	claimed, err := o.store.ClaimIssueDuty(ctx, r.TaskID, duty)
	if err != nil || !claimed {
		return err // not claimed: done already, or by another process now
	}
	t, err := o.Get(ctx, r.TaskID)
	if err == nil {
		quoted := "> " + strings.ReplaceAll(strings.TrimSpace(r.Instructions), "\n", "\n> ")
		note := fmt.Sprintf("Review sent to agent task %s at %s:\n\n%s", t.ID, r.SentAt.UTC().Format(time.RFC3339), quoted)
		err = o.issues.Review(ctx, t.IssueID, Assignee(t), note)
	}
	if derr := o.store.IssueDutyDone(ctx, r.TaskID, duty, err == nil); derr != nil {
		slog.Warn("cannot record that a review is on its issue", "task", r.TaskID, "review", r.Seq, "err", derr)
	}
	return err
}
