// Package loop connects the tracker and the agent orchestrator: a task
// started from an issue gets a prompt assembled from the tracker and the
// ruleset library, the issue follows the task (in progress, its failure
// recorded, closed by the merge), and the ready queue can be worked by
// agents with a concurrency cap.
package loop

import (
	"context"
	"fmt"
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
// its orchestrator.
type Loop struct {
	orch  *orchestrator.Orchestrator
	rules Rules // nil: no ruleset library
	actor string
	mu    sync.Mutex // serializes the tracker writes of the loop
}

// New returns the loop over orch (whose project holds the tracker) and
// rules (nil: prompts get no rulesets). It follows orch's tasks: when a
// task of an issue fails, the issue is reopened with the failure recorded.
func New(orch *orchestrator.Orchestrator, rules Rules, actor string) *Loop {
	l := &Loop{orch: orch, rules: rules, actor: actor}
	orch.Subscribe(func(c orchestrator.Change) {
		if c.Task.IssueID != "" && c.Kind == orchestrator.ChangeUpdated && c.Task.Status == orchestrator.StatusFailed && c.Task.Error != nil {
			go l.recordFailure(context.Background(), c.Task)
		}
	})
	return l
}

// Orchestrator returns the orchestrator the loop drives.
func (l *Loop) Orchestrator() *orchestrator.Orchestrator { return l.orch }

// open opens the tracker of the orchestrator's project.
func (l *Loop) open(ctx context.Context) (*store.Repo, error) {
	dir, err := store.FindFrom(l.orch.Repo())
	if err != nil {
		return nil, err
	}
	return store.Open(ctx, dir, l.actor)
}

// StartInput is create_task's arguments for a task started from an issue.
type StartInput struct {
	IssueID      string
	Tool         string
	Description  string // "": "<issue id>: <title>"
	Instructions string // appended to the assembled prompt
	Branch       string
	Config       []byte
	Actor        string
}

// Assignee names the agent of a task on its issue.
func Assignee(t orchestrator.Task) string { return "agent:" + strings.ToLower(t.Tool) + ":" + t.ID }

// Start starts an agent on an issue: its prompt is assembled from the
// tracker (Prompt), the task records the issue, and the issue goes in
// progress with the agent as its assignee. A closed issue is refused.
func (l *Loop) Start(ctx context.Context, in StartInput) (orchestrator.Task, error) {
	r, err := l.open(ctx)
	if err != nil {
		return orchestrator.Task{}, err
	}
	defer r.Close()
	is, err := r.ShowIssue(ctx, in.IssueID)
	if err != nil {
		return orchestrator.Task{}, err
	}
	if is.Status == tracker.IssueClosed {
		return orchestrator.Task{}, fault.New(fault.Conflict, "issue %s is closed", is.ID).
			WithHint("reopen it (update_issue status open) to work on it again")
	}
	settings, err := l.orch.Settings(ctx)
	if err != nil {
		return orchestrator.Task{}, err
	}
	prompt, err := Prompt(ctx, r, l.rules, settings.Rulesets, RulesAgent(in.Tool), is.ID)
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
	// after the issue went in progress, never before.
	l.mu.Lock()
	defer l.mu.Unlock()
	t, err := l.orch.Create(ctx, orchestrator.CreateInput{
		Tool: in.Tool, Description: in.Description, Instructions: prompt, Branch: in.Branch,
		Config: in.Config, Actor: in.Actor, IssueID: is.ID,
	})
	if err != nil {
		return t, err
	}
	if t.Status == orchestrator.StatusFailed {
		return t, nil // the watcher records the failure on the issue
	}
	status, who := string(tracker.IssueInProgress), Assignee(t)
	if _, err := r.UpdateIssue(ctx, is.ID, store.IssuePatch{Status: &status, Assignee: &who}); err != nil {
		return t, fault.Wrap(fault.Internal, err, "task "+t.ID+" started, but issue "+is.ID+" could not be marked in progress")
	}
	return t, nil
}

// Finished records on t's issue what its run ended with, as the watcher
// does in the background: a caller about to exit calls it so that nothing
// is lost.
func (l *Loop) Finished(ctx context.Context, t orchestrator.Task) {
	if t.IssueID != "" && t.Status == orchestrator.StatusFailed && t.Error != nil {
		l.recordFailure(ctx, t)
	}
}

// recordFailure reopens t's issue (unless it was closed meanwhile) and
// appends the failure to its description, so that whoever reads the issue
// next sees what happened; the assignee is cleared.
func (l *Loop) recordFailure(ctx context.Context, t orchestrator.Task) {
	note := fmt.Sprintf("%s (%s, branch %s) failed at %s. %s",
		failureMark(t), agent.Name(t.Tool), t.Branch, time.Now().UTC().Format(time.RFC3339), t.Error.Sentence())
	l.reopen(ctx, t, func(is tracker.IssueDetail) bool {
		// Closed meanwhile, taken over by another task, or recorded already.
		return is.Status != tracker.IssueClosed && (is.Assignee == nil || *is.Assignee == Assignee(t)) &&
			!strings.Contains(is.Description, failureMark(t))
	}, note)
}

// failureMark starts the note recordFailure appends for t.
func failureMark(t orchestrator.Task) string { return "Agent task " + t.ID }
