package app

import (
	"context"
	"strings"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/orchestrator"
	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

// reopen hands t's issue back, open and unassigned with note appended to
// its description, when holds says the task still holds the issue as it
// reads now; otherwise it leaves the issue as it is.
func (l *Loop) reopen(ctx context.Context, t orchestrator.Task, holds func(tracker.IssueDetail) bool, note string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.reopenLocked(ctx, t, holds, note)
}

// reopenLocked is reopen with l.mu held.
func (l *Loop) reopenLocked(ctx context.Context, t orchestrator.Task, holds func(tracker.IssueDetail) bool, note string) error {
	return l.do(ctx, func(r *store.Repo) error {
		is, err := r.ShowIssue(ctx, t.IssueID)
		if fault.CodeOf(err) == fault.NotFound {
			return nil // deleted meanwhile: nothing holds the note
		}
		if err != nil || !holds(is) {
			return err
		}
		desc := note
		if prev := strings.TrimRight(is.Description, "\n"); prev != "" {
			desc = prev + "\n\n---\n" + note
		}
		status, none := string(tracker.IssueOpen), ""
		_, err = r.UpdateIssue(ctx, is.ID, store.IssuePatch{Status: &status, Assignee: &none, Description: &desc})
		return err
	})
}
