package loop

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/sudocode/sudocode/internal/orchestrator"
	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

// End ends task id (orchestrator.End) and hands its issue back: an issue
// still in progress with the task's agent as assignee goes back to open,
// unassigned, with a line saying the task was ended, so that it is ready
// again rather than waiting on an agent that is gone. An issue the task
// no longer holds (closed, taken over, or already reopened by a recorded
// failure) is left as it is.
func (l *Loop) End(ctx context.Context, id string, in orchestrator.EndInput) (orchestrator.EndResult, error) {
	res, err := l.orch.End(ctx, id, in)
	if err != nil {
		return res, err
	}
	if res.Task.IssueID != "" {
		l.release(ctx, res.Task, res.Removal)
	}
	return res, nil
}

// release returns t's issue to open as End says.
func (l *Loop) release(ctx context.Context, t orchestrator.Task, rm orchestrator.Removal) {
	l.mu.Lock()
	defer l.mu.Unlock()
	r, err := l.open(ctx)
	if err != nil {
		return
	}
	defer r.Close()
	is, err := r.ShowIssue(ctx, t.IssueID)
	if err != nil || is.Status != tracker.IssueInProgress || is.Assignee == nil || *is.Assignee != Assignee(t) {
		return
	}
	what := "was ended (" + string(t.Status) + ")"
	if t.Status == orchestrator.StatusCancelled {
		what = "was stopped while its agent ran (cancelled)"
	}
	branch := "branch " + t.Branch + " kept"
	switch {
	case rm.BranchDeleted:
		branch = "branch " + t.Branch + " deleted"
	case rm.SavedCommit != "":
		branch += ", its uncommitted work saved as " + rm.SavedCommit
	}
	note := fmt.Sprintf("\n\n---\n%s (%s) %s at %s without being merged; %s. The issue is open again.",
		failureMark(t), t.Tool, what, time.Now().UTC().Format(time.RFC3339), branch)
	desc := strings.TrimRight(is.Description, "\n") + note
	status, none := string(tracker.IssueOpen), ""
	_, _ = r.UpdateIssue(ctx, is.ID, store.IssuePatch{Status: &status, Assignee: &none, Description: &desc})
}
