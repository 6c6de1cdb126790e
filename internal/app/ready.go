package app

import (
	"context"
	"encoding/json"

	"github.com/sudocode/sudocode/internal/orchestrator"
	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

// RunInput is run_ready's arguments.
type RunInput struct {
	Agent    string
	Config   json.RawMessage
	Limit    int // at most this many issues are started in all (0: 10)
	Parallel int // at most this many agents at a time (0: 1)
	Priority *int
	Assignee string                  // only issues assigned to this person, as ready filters
	Merge    orchestrator.MergeInput // how each finished task is merged
}

// Outcomes of one issue in a run.
const (
	OutcomeMerged    = "merged"     // its task succeeded, its branch was merged, the issue closed
	OutcomeFailed    = "failed"     // its task failed: the issue is open again, with the failure recorded
	OutcomeNotMerged = "not_merged" // its task succeeded but the merge was refused; the task waits
	OutcomeNoStart   = "not_started"
)

// RunItem is one issue a run worked on.
type RunItem struct {
	IssueID string `json:"issue_id" jsonschema:"The issue"`
	TaskID  string `json:"task_id,omitempty" jsonschema:"The task that worked on it"`
	Outcome string `json:"outcome" jsonschema:"merged, failed, not_merged or not_started"`
	Commit  string `json:"commit,omitempty" jsonschema:"The merge commit"`
	Error   string `json:"error,omitempty" jsonschema:"Why it failed, was not merged or not started"`
}

// RunResult is what a run did, in the order the issues were started.
type RunResult struct {
	Items []RunItem `json:"items" jsonschema:"The issues worked on, in the order they were started"`
}

// RunReady works the ready queue: it starts agents on the ready issues
// (highest priority, then oldest, with ready's filters), at most Parallel
// at a time and Limit in all; each task that finishes is merged, which
// closes its issue, so that the issues it blocked become ready and start
// in turn. A task that fails leaves its issue open with the failure
// recorded, and what it blocks stays blocked. It returns when nothing is
// ready and nothing runs, or the limit is reached and every task ended.
func (l *Loop) RunReady(ctx context.Context, in RunInput) (RunResult, error) {
	if in.Limit <= 0 {
		in.Limit = 10
	}
	if in.Parallel <= 0 {
		in.Parallel = 1
	}
	res := RunResult{Items: []RunItem{}}
	tried := map[string]bool{}
	done := make(chan int, in.Limit)
	running := 0
	for {
		var next []string
		if len(res.Items) < in.Limit && running < in.Parallel {
			ids, err := l.readyIDs(ctx, in)
			if err != nil && running == 0 {
				return res, err
			}
			for _, id := range ids {
				if !tried[id] {
					next = append(next, id)
				}
			}
		}
		for _, id := range next {
			if len(res.Items) >= in.Limit || running >= in.Parallel {
				break
			}
			tried[id] = true
			t, err := l.Start(ctx, StartInput{IssueID: id, Agent: in.Agent, Config: in.Config})
			item := RunItem{IssueID: id, TaskID: t.ID}
			switch {
			case err != nil:
				item.Outcome, item.Error = OutcomeNoStart, err.Error()
			case t.Status == orchestrator.StatusFailed:
				item.Outcome, item.Error = OutcomeFailed, failure(t)
			}
			res.Items = append(res.Items, item)
			if item.Outcome != "" {
				continue
			}
			running++
			go func(i int) {
				_ = l.orch.Wait(ctx, t.ID)
				done <- i
			}(len(res.Items) - 1)
		}
		if running == 0 {
			return res, ctx.Err()
		}
		select {
		case i := <-done:
			running--
			l.finish(ctx, &res.Items[i], in.Merge)
		case <-ctx.Done():
			return res, ctx.Err()
		}
	}
}

// finish merges a finished task, or records why it is not merged.
func (l *Loop) finish(ctx context.Context, item *RunItem, m orchestrator.MergeInput) {
	t, err := l.orch.Get(ctx, item.TaskID)
	if err != nil {
		item.Outcome, item.Error = OutcomeFailed, err.Error()
		return
	}
	if t.Status != orchestrator.StatusWaiting && t.Status != orchestrator.StatusCompleted {
		item.Outcome, item.Error = OutcomeFailed, failure(t)
		l.Finished(ctx, t) // now, so that the run returns with it recorded
		return
	}
	mr, err := l.Merge(ctx, t.ID, m)
	if err != nil && mr.Commit == "" {
		item.Outcome, item.Error = OutcomeNotMerged, err.Error()
		return
	}
	item.Outcome, item.Commit = OutcomeMerged, mr.Commit
	if err != nil {
		item.Error = err.Error()
	}
}

// failure says why t did not finish, in the words of the note on its
// issue.
func failure(t orchestrator.Task) string {
	switch {
	case t.Error != nil:
		return t.Error.Sentence()
	case t.Status == orchestrator.StatusCancelled:
		return "The agent was stopped."
	case t.Status == orchestrator.StatusFailed:
		return "The agent failed."
	}
	return "The agent did not finish."
}

// readyIDs returns the ids of the ready issues, in ready's order.
func (l *Loop) readyIDs(ctx context.Context, in RunInput) ([]string, error) {
	rr, err := Read(ctx, l.tracker, l.actor, func(r *store.Repo) (tracker.ReadyResult, error) {
		return r.Ready(ctx, store.ReadyOptions{Limit: 100, Priority: in.Priority, Assignee: in.Assignee, Issues: true})
	})
	if err != nil {
		return nil, err
	}
	if rr.Issues == nil {
		return nil, nil
	}
	ids := make([]string, len(*rr.Issues))
	for i, c := range *rr.Issues {
		ids[i] = c.ID
	}
	return ids, nil
}
