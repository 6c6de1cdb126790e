package app

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/orchestrator"
	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

// Review records on t's issue the review that was just sent to its agent
// as new instructions (update_task), so that the issue keeps the history
// of what was asked of the agent; the issue is in progress again.
func (l *Loop) Review(ctx context.Context, t orchestrator.Task, instructions string) error {
	if t.IssueID == "" || strings.TrimSpace(instructions) == "" {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.do(ctx, func(r *store.Repo) error {
		is, err := r.ShowIssue(ctx, t.IssueID)
		if err != nil {
			return err
		}
		quoted := "> " + strings.ReplaceAll(strings.TrimSpace(instructions), "\n", "\n> ")
		desc := strings.TrimRight(is.Description, "\n") +
			fmt.Sprintf("\n\n---\nReview sent to agent task %s at %s:\n\n%s", t.ID, time.Now().UTC().Format(time.RFC3339), quoted)
		status, who := string(tracker.IssueInProgress), Assignee(t)
		if _, err := r.UpdateIssue(ctx, is.ID, store.IssuePatch{Description: &desc, Status: &status, Assignee: &who}); err != nil {
			return fault.Wrap(fault.Internal, err, "the review went to task "+t.ID+", but issue "+is.ID+" could not record it")
		}
		return nil
	})
}
