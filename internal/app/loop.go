// Package app is the application core: a Project (project.go) is what
// every surface opens to reach a project's tracker, tasks and rulesets.
// The Loop connects the tracker and the agent orchestrator: a task
// started from an issue gets a prompt assembled from the tracker and the
// ruleset library, the issue follows the task (in progress, its failure
// recorded, closed by the merge), and the ready queue can be worked by
// agents with a concurrency cap.
package app

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/orchestrator"
	"github.com/sudocode/sudocode/internal/orchestrator/agent"
	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

// Loop works the issues of one repository's tracker with the agents of
// its orchestrator: it is the tasks as the surfaces see them. A task's
// transitions that owe its issue something (Start, Update with new
// instructions, Merge, End) are the loop's own methods; what a surface
// reads of the tasks, and the changes that owe no issue anything, are the
// orchestrator's, reached through the loop (taskReads). The orchestrator
// itself is not handed out, so that no surface can move a task past the
// loop.
type Loop struct {
	taskReads
	orch       *orchestrator.Orchestrator
	tracker    *Tracker
	ownTracker bool  // made by New, closed by Close
	rules      Rules // nil: no ruleset library
	actor      string
	mu         sync.Mutex // serializes the loop's changes of issues with the tasks' starts

	unsubscribe func()
	bgMu        sync.Mutex // guards closed and the start of background work
	closed      bool
	background  sync.WaitGroup // the duties being done on their issues
}

// New returns the loop over orch, the tracker of its project tr (nil: a
// tracker of its own, found from orch's repository) and rules (nil:
// prompts get no rulesets). It follows orch's tasks: when a
// task of an issue fails, the issue is reopened with the failure noted,
// once (orchestrator.DutyNoteFailure). It also does, in the background,
// the issues' duties no process did: the failures of a server killed
// while its agent ran (the store marks its task failed when it is next
// opened), and the notes and closes of a process killed while making
// them. Close stops it.
func New(orch *orchestrator.Orchestrator, tr *Tracker, rules Rules, actor string) *Loop {
	l := &Loop{taskReads: orch, orch: orch, tracker: tr, rules: rules, actor: actor}
	if tr == nil {
		l.tracker, l.ownTracker = NewTracker(orch.Repo(), actor), true
	}
	l.unsubscribe = orch.Subscribe(func(c orchestrator.Change) {
		if c.Task.IssueID != "" && c.Kind == orchestrator.ChangeUpdated && c.Task.Status == orchestrator.StatusFailed && c.Task.Error != nil {
			t := c.Task
			l.inBackground(func() { l.noteFailure(context.Background(), t) })
		}
	})
	l.inBackground(func() { l.doMissedDuties(context.Background()) })
	return l
}

// Close stops following the tasks and waits for the notes being written.
func (l *Loop) Close() {
	l.unsubscribe()
	l.bgMu.Lock()
	l.closed = true
	l.bgMu.Unlock()
	l.background.Wait()
	if l.ownTracker {
		l.tracker.Close()
	}
}

// inBackground runs f in a goroutine Close waits for, unless the loop is
// closed.
func (l *Loop) inBackground(f func()) {
	l.bgMu.Lock()
	defer l.bgMu.Unlock()
	if !l.closed {
		l.background.Go(f)
	}
}

// doMissedDuties does the duties to issues that no process did: the
// reviews not recorded, the failures not noted, the merges whose issue
// was not closed, the ends whose issue was not handed back.
func (l *Loop) doMissedDuties(ctx context.Context) {
	// In the order a task's life owes them: its reviews before its end, a
	// failure's note before a hand-back, so that each finds its issue as
	// the one before left it.
	if err := l.noteReviews(ctx, ""); err != nil {
		slog.Warn("cannot record the reviews not yet on their issues", "err", err)
	}
	for _, duty := range []orchestrator.IssueDuty{orchestrator.DutyNoteFailure, orchestrator.DutyCloseMerged, orchestrator.DutyReleaseEnded} {
		tasks, err := l.orch.UndoneIssueDuties(ctx, duty)
		if err != nil {
			slog.Warn("cannot look for the duties not yet done on issues", "duty", duty, "err", err)
			continue
		}
		for _, t := range tasks {
			switch duty {
			case orchestrator.DutyNoteFailure:
				l.noteFailure(ctx, t)
			case orchestrator.DutyCloseMerged:
				l.closeMerged(ctx, t, fmt.Sprintf("Merged as %s (task %s)", t.MergedCommit, t.ID))
			case orchestrator.DutyReleaseEnded:
				l.release(ctx, t, "branch "+t.Branch+" as the end left it")
			}
		}
	}
}

// do runs fn on the tracker, with changes recorded as the loop's actor.
func (l *Loop) do(ctx context.Context, fn func(*store.Repo) error) error {
	return l.tracker.Do(ctx, l.actor, fn)
}

// StartInput is create_task's arguments for a task started from an issue.
type StartInput struct {
	IssueID      string
	Agent        string
	Description  string // "": "<issue id>: <title>"
	Instructions string // appended to the assembled prompt
	Branch       string
	Config       []byte
	Actor        string
}

// Assignee names the agent of a task on its issue.
func Assignee(t orchestrator.Task) string { return "agent:" + strings.ToLower(t.Agent) + ":" + t.ID }

// Start starts an agent on an issue: its prompt is assembled from the
// tracker (Prompt), the task records the issue, and the issue goes in
// progress with the agent as its assignee. A closed issue is refused.
func (l *Loop) Start(ctx context.Context, in StartInput) (orchestrator.Task, error) {
	settings, err := l.orch.Settings(ctx)
	if err != nil {
		return orchestrator.Task{}, err
	}
	var is tracker.IssueDetail
	var prompt string
	err = l.do(ctx, func(r *store.Repo) error {
		if is, err = r.ShowIssue(ctx, in.IssueID); err != nil {
			return err
		}
		if is.Status == tracker.IssueClosed {
			return fault.New(fault.Conflict, "issue %s is closed", is.ID).
				WithHint("reopen it (update_issue status open) to work on it again")
		}
		prompt, err = Prompt(ctx, r, l.rules, settings.Rulesets, RulesAgent(in.Agent), is.ID)
		return err
	})
	if err != nil {
		return orchestrator.Task{}, err
	}
	if s := strings.TrimSpace(in.Instructions); s != "" {
		prompt += "\n## Further instructions\n\n" + s + "\n"
	}
	if strings.TrimSpace(in.Description) == "" {
		in.Description = is.ID + ": " + is.Title
	}
	// Held from the start, so that a failure the watcher records lands
	// after the issue went in progress, never before. The tracker is not:
	// the other surfaces use it while the task starts.
	l.mu.Lock()
	defer l.mu.Unlock()
	t, err := l.orch.Create(ctx, orchestrator.CreateInput{
		Agent: in.Agent, Description: in.Description, Instructions: prompt, Branch: in.Branch,
		Config: in.Config, Actor: in.Actor, IssueID: is.ID, Settings: &settings,
	})
	if err != nil {
		return t, err
	}
	if t.Status == orchestrator.StatusFailed {
		return t, nil // the watcher records the failure on the issue
	}
	status, who := string(tracker.IssueInProgress), Assignee(t)
	err = l.do(ctx, func(r *store.Repo) error {
		_, err := r.UpdateIssue(ctx, is.ID, store.IssuePatch{Status: &status, Assignee: &who})
		return err
	})
	if err != nil {
		return t, fault.Wrap(fault.Internal, err, "task "+t.ID+" started, but issue "+is.ID+" could not be marked in progress")
	}
	return t, nil
}

// Finished notes on t's issue what its run ended with, as the watcher
// does in the background, and returns once it is noted: a caller about to
// exit calls it so that nothing is lost.
func (l *Loop) Finished(ctx context.Context, t orchestrator.Task) {
	if t.IssueID != "" && t.Status == orchestrator.StatusFailed && t.Error != nil {
		l.noteFailure(ctx, t)
	}
}

// noteFailure reopens t's issue (unless it was closed or taken over by
// another task meanwhile) and appends the failure to its description, so
// that whoever reads the issue next sees what happened; the assignee is
// cleared. It does so once per task, whichever process or loop gets there
// first; a failed write is retried by the next loop to start.
func (l *Loop) noteFailure(ctx context.Context, t orchestrator.Task) {
	l.mu.Lock()
	defer l.mu.Unlock()
	claimed, err := l.orch.ClaimIssueDuty(ctx, t.ID, orchestrator.DutyNoteFailure)
	if err != nil {
		slog.Warn("cannot note a task's failure on its issue", "task", t.ID, "issue", t.IssueID, "err", err)
	}
	if !claimed {
		return
	}
	note := fmt.Sprintf("%s (%s, branch %s) failed at %s. %s",
		failureMark(t), agent.Name(t.Agent), t.Branch, time.Now().UTC().Format(time.RFC3339), t.Error.Sentence())
	err = l.reopenLocked(ctx, t, func(is tracker.IssueDetail) bool {
		return is.Status != tracker.IssueClosed && (is.Assignee == nil || *is.Assignee == Assignee(t))
	}, note)
	if err != nil {
		slog.Warn("cannot note a task's failure on its issue; the next start retries", "task", t.ID, "issue", t.IssueID, "err", err)
	}
	if err := l.orch.IssueDutyDone(ctx, t.ID, orchestrator.DutyNoteFailure, err == nil); err != nil {
		slog.Warn("cannot record that a task's failure is on its issue", "task", t.ID, "err", err)
	}
}

// failureMark starts the notes noteFailure and release append for t.
func failureMark(t orchestrator.Task) string { return "Agent task " + t.ID }
