package orchestrator

import (
	"context"
	"log/slog"
	"strings"

	"github.com/sudocode/sudocode/internal/tracker"
)

// Issues is the tracker as a task's life reaches it: the issue a task is
// started from, and what each of the task's transitions owes that issue.
// The application core implements it over the project's tracker; an
// orchestrator that follows no issues (FollowIssues not called) runs only
// tasks of no issue.
//
// Each change a transition owes an issue is a duty (issue_duties.go),
// kept in the task store with the transition, so that it lands on the
// issue exactly once, whichever process gets there: the one that made the
// transition, or the next to open the tasks after it died.
type Issues interface {
	// Brief is what a task of issue id starts with: its title, and the
	// prompt assembled for an agent of kind agentKind with the rulesets
	// the project always applies. A closed issue is refused (Conflict).
	Brief(ctx context.Context, id, agentKind string, always []string) (IssueBrief, error)
	// Title is the issue's title, for the message of a merge.
	Title(ctx context.Context, id string) (string, error)
	// Take puts the issue in progress with assignee.
	Take(ctx context.Context, id, assignee string) error
	// HandBack reopens the issue, unassigned, with note appended to its
	// description, when held says the task still holds it as it reads
	// now; otherwise it leaves the issue as it is. A deleted issue holds
	// nothing.
	HandBack(ctx context.Context, id string, held func(IssueState) bool, note string) error
	// Review appends note (a review sent to the agent) to the issue and,
	// unless the issue is closed, puts it in progress with assignee.
	Review(ctx context.Context, id, assignee, note string) error
	// Close closes the issue with reason, unless it is closed or gone.
	Close(ctx context.Context, id, reason string) error
	// Ready is the ids of the ready issues, in ready's order.
	Ready(ctx context.Context, f ReadyFilter) ([]string, error)
	// TaskEvent records in the issue's history what happened to task
	// taskID on it: started, resumed, restarted, merged, failed, cancelled or ended. A
	// deleted issue records nothing.
	TaskEvent(ctx context.Context, id, taskID, what string) error
}

// IssueBrief is what a task of an issue starts with.
type IssueBrief struct {
	ID, Title, Prompt string
}

// IssueState is what decides whether a task still holds its issue.
type IssueState struct {
	Status   tracker.IssueStatus
	Assignee *string
}

// ReadyFilter narrows the ready issues a run works, as ready's filters.
type ReadyFilter struct {
	Priority *int
	Assignee string
}

// Assignee names the agent of a task on its issue.
func Assignee(t Task) string { return "agent:" + strings.ToLower(t.Agent) + ":" + t.ID }

// FollowIssues makes the orchestrator keep the tasks' issues with their
// tasks through is: a task can be started from an issue (Start), and each
// transition does what it owes the issue. It also does, in the background,
// the duties no process did: the failures of a server killed while its
// agent ran (the store marks its task failed when it is next opened), and
// the reviews, notes and closes of a process killed while making them.
// Call it once, before the orchestrator is handed out; Close stops it.
func (o *Orchestrator) FollowIssues(is Issues) {
	o.issues = is
	o.unfollow = o.Subscribe(func(c Change) {
		if c.Task.IssueID != "" && c.Kind == ChangeUpdated && c.Task.Status == StatusFailed && c.Task.Error != nil {
			t := c.Task
			o.inBackground(func() { o.noteFailure(context.Background(), t) })
		}
	})
	o.inBackground(func() { o.doMissedDuties(context.Background()) })
}

// stopFollowing stops following the tasks for their issues and waits for
// the duties being done.
func (o *Orchestrator) stopFollowing() {
	if o.unfollow != nil {
		o.unfollow()
	}
	o.bgMu.Lock()
	o.bgClosed = true
	o.bgMu.Unlock()
	o.duties.Wait()
}

// inBackground runs f in a goroutine Close waits for, unless the
// orchestrator is closing.
func (o *Orchestrator) inBackground(f func()) {
	o.bgMu.Lock()
	defer o.bgMu.Unlock()
	if !o.bgClosed {
		o.duties.Go(f)
	}
}

// doMissedDuties does the duties to issues that no process did: the
// reviews not recorded, the failures not noted, the merges whose issue
// was not closed, the ends whose issue was not handed back.
func (o *Orchestrator) doMissedDuties(ctx context.Context) {
	// In the order a task's life owes them: its reviews before its end, a
	// failure's note before a hand-back, so that each finds its issue as
	// the one before left it.
	if err := o.noteReviews(ctx, ""); err != nil {
		slog.Warn("cannot record the reviews not yet on their issues", "err", err)
	}
	for _, duty := range []IssueDuty{DutyNoteFailure, DutyCloseMerged, DutyReleaseEnded} {
		tasks, err := o.store.UndoneIssueDuties(ctx, duty)
		if err != nil {
			slog.Warn("cannot look for the duties not yet done on issues", "duty", duty, "err", err)
			continue
		}
		for _, t := range tasks {
			switch duty {
			case DutyNoteFailure:
				o.noteFailure(ctx, t)
			case DutyCloseMerged:
				_ = o.closeMerged(ctx, t, "Merged as "+t.MergedCommit+" (task "+t.ID+")")
			case DutyReleaseEnded:
				o.handBackEnded(ctx, t, "branch "+t.Branch+" as the end left it")
			}
		}
	}
}

// taskEvent records what happened to t on its issue's history. The
// history is a record for people: a failure to write it is logged, and
// changes nothing of what the task did.
func (o *Orchestrator) taskEvent(ctx context.Context, t Task, what string) {
	if o.issues == nil || t.IssueID == "" {
		return
	}
	if err := o.issues.TaskEvent(ctx, t.IssueID, t.ID, what); err != nil {
		slog.Warn("cannot record a task's event in its issue's history", "task", t.ID, "issue", t.IssueID, "event", what, "err", err)
	}
}
