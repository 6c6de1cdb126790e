package orchestrator

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/orchestrator/agent"
	"github.com/sudocode/sudocode/internal/tracker"
)

// StartInput is create_task's arguments for a task started from an issue.
type StartInput struct {
	IssueID      string
	Agent        string
	Description  string // "": "<issue id>: <title>"
	Instructions string // appended to the assembled prompt
	Branch       string
	Config       []byte
	Actor        string
	// stored, when set, is done once the task is stored, after its issue
	// was taken and before its agent starts (run_ready records the task
	// then): a failure fails the task's start.
	stored func(context.Context, Task) error
}

// Start starts an agent on an issue: its prompt is assembled from the
// tracker (Issues.Brief), the task records the issue, and the issue goes
// in progress with the agent as its assignee. A closed issue is refused.
func (o *Orchestrator) Start(ctx context.Context, in StartInput) (Task, error) {
	if o.issues == nil {
		return Task{}, fault.New(fault.Unavailable, "tasks of issues need the project's tracker")
	}
	settings, err := o.Settings(ctx)
	if err != nil {
		return Task{}, err
	}
	brief, err := o.issues.Brief(ctx, in.IssueID, in.Agent, settings.Rulesets)
	if err != nil {
		return Task{}, err
	}
	prompt := brief.Prompt
	if s := strings.TrimSpace(in.Instructions); s != "" {
		prompt += "\n## Further instructions\n\n" + s + "\n"
	}
	if strings.TrimSpace(in.Description) == "" {
		in.Description = brief.ID + ": " + brief.Title
	}
	// Held from the start, so that a failure the follower records lands
	// after the issue went in progress, never before. The tracker is not:
	// the other surfaces use it while the task starts.
	o.issueMu.Lock()
	defer o.issueMu.Unlock()
	// The issue goes in progress once the task is stored and before its
	// agent starts: a server killed at any point after leaves a task the
	// issue names (which a restart runs on or fails), never an open issue
	// that a later run_ready would start a second time while the first
	// task runs.
	return o.create(ctx, CreateInput{
		Agent: in.Agent, Description: in.Description, Instructions: prompt, Branch: in.Branch,
		Config: in.Config, Actor: in.Actor, IssueID: brief.ID, Settings: &settings,
		stored: func(ctx context.Context, t Task) error {
			if err := o.issues.Take(ctx, brief.ID, Assignee(t)); err != nil {
				return fault.Wrap(fault.Internal, err, "issue "+brief.ID+" could not be marked in progress")
			}
			o.taskEvent(ctx, t, "started")
			if in.stored != nil {
				return in.stored(ctx, t)
			}
			return nil
		},
	})
}

// Finished notes on t's issue what its run ended with, as the follower
// does in the background, and returns once it is noted: a caller about to
// exit calls it so that nothing is lost.
func (o *Orchestrator) Finished(ctx context.Context, t Task) {
	if o.issues != nil && t.IssueID != "" && t.Status == StatusFailed && t.Error != nil {
		o.noteFailure(ctx, t)
	}
}

// noteFailure reopens t's issue (unless it was closed or taken over by
// another task meanwhile) and appends the failure to its description, so
// that whoever reads the issue next sees what happened; the assignee is
// cleared. It does so once per task, whichever process gets there first;
// a failed write is retried by the next orchestrator to open.
func (o *Orchestrator) noteFailure(ctx context.Context, t Task) {
	o.issueMu.Lock()
	defer o.issueMu.Unlock()
	claimed, err := o.store.ClaimIssueDuty(ctx, t.ID, DutyNoteFailure)
	if err != nil {
		slog.Warn("cannot note a task's failure on its issue", "task", t.ID, "issue", t.IssueID, "err", err)
	}
	if !claimed {
		return
	}
	note := fmt.Sprintf("%s (%s, branch %s) failed at %s. %s",
		failureMark(t), agent.Name(t.Agent), t.Branch, time.Now().UTC().Format(time.RFC3339), t.Error.Sentence())
	err = o.issues.HandBack(ctx, t.IssueID, func(is IssueState) bool {
		return is.Status != tracker.IssueClosed && (is.Assignee == nil || *is.Assignee == Assignee(t))
	}, note)
	o.taskEvent(ctx, t, "failed")
	if err != nil {
		slog.Warn("cannot note a task's failure on its issue; the next start retries", "task", t.ID, "issue", t.IssueID, "err", err)
	}
	if err := o.store.IssueDutyDone(ctx, t.ID, DutyNoteFailure, err == nil); err != nil {
		slog.Warn("cannot record that a task's failure is on its issue", "task", t.ID, "err", err)
	}
}

// failureMark starts the notes noteFailure and handBackEnded append for t.
func failureMark(t Task) string { return "Agent task " + t.ID }
