package loop

import (
	"context"
	"strings"

	"github.com/sudocode/sudocode/internal/orchestrator"
	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

// reopen hands t's issue back, open and unassigned with note appended to
// its description, when holds says the task still holds the issue as it
// reads now; otherwise it leaves the issue as it is.
func (l *Loop) reopen(ctx context.Context, t orchestrator.Task, holds func(tracker.IssueDetail) bool, note string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	r, err := l.open(ctx)
	if err != nil {
		return
	}
	defer r.Close()
	is, err := r.ShowIssue(ctx, t.IssueID)
	if err != nil || !holds(is) {
		return
	}
	desc := strings.TrimRight(is.Description, "\n") + "\n\n---\n" + note
	status, none := string(tracker.IssueOpen), ""
	_, _ = r.UpdateIssue(ctx, is.ID, store.IssuePatch{Status: &status, Assignee: &none, Description: &desc})
}
