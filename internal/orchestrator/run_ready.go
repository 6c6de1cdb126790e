package orchestrator

import (
	"context"
	"encoding/json"
	"log/slog"

	"github.com/sudocode/sudocode/internal/fault"
)

// RunInput is run_ready's arguments.
type RunInput struct {
	Agent    string
	Config   json.RawMessage
	Limit    int // at most this many issues are started in all (0: 10)
	Parallel int // at most this many agents at a time (0: 1)
	Priority *int
	Assignee string     // only issues assigned to this person, as ready filters
	Merge    MergeInput // how each finished task is merged
}

// Outcomes of one issue in a run.
const (
	IssueMerged     = "merged"     // its task succeeded, its branch was merged, the issue closed
	IssueFailed     = "failed"     // its task failed: the issue is open again, with the failure recorded
	IssueNotMerged  = "not_merged" // its task succeeded but the merge was refused; the task waits
	IssueNotStarted = "not_started"
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
// It first takes up the tasks an earlier call started and did not finish
// (that call's client went away, or its server was killed): it waits for
// each and merges it as that call would have, listed first.
func (o *Orchestrator) RunReady(ctx context.Context, in RunInput) (RunResult, error) {
	if o.issues == nil {
		return RunResult{}, fault.New(fault.Unavailable, "running the ready issues needs the project's tracker")
	}
	if in.Limit <= 0 {
		in.Limit = 10
	}
	if in.Parallel <= 0 {
		in.Parallel = 1
	}
	res := RunResult{Items: []RunItem{}}
	tried := map[string]bool{}
	var merges []MergeInput // each item's
	var held []string
	defer func() { o.readyHeld.release(held) }()
	running := 0
	wait := func(t string, i int, done chan<- int) {
		running++
		go func() {
			_ = o.Wait(ctx, t)
			done <- i
		}()
	}
	orphans, err := o.store.orphanReadyRuns(ctx, &o.readyHeld)
	for _, r := range orphans {
		held = append(held, r.task)
	}
	if err != nil {
		return res, err
	}
	done := make(chan int, in.Limit+len(orphans))
	for _, r := range orphans {
		if t, err := o.store.Get(ctx, r.task); err == nil && t.Status == StatusFailed && t.Error != nil && t.Error.Type == ErrTypeServerStopped {
			// Its server died under it: the issue goes back to the queue
			// with the failure noted (now, not in the background, so the
			// issue reads ready below) and this call starts it again.
			o.noteFailure(ctx, t)
			_ = o.store.dropReadyRun(ctx, r.task)
			continue
		}
		tried[r.issue] = true
		res.Items = append(res.Items, RunItem{IssueID: r.issue, TaskID: r.task})
		merges = append(merges, r.merge)
		wait(r.task, len(res.Items)-1, done)
	}
	for {
		var next []string
		if len(res.Items) < in.Limit && running < in.Parallel {
			ids, err := o.readyIDs(ctx, in)
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
			t, err := o.Start(ctx, StartInput{IssueID: id, Agent: in.Agent, Config: in.Config,
				// Recorded before its agent starts: a call that ends from
				// then on leaves the task to the next call.
				stored: func(ctx context.Context, t Task) error {
					if o.readyHeld.hold(t.ID) {
						held = append(held, t.ID)
					}
					return o.store.keepReadyRun(ctx, readyRun{task: t.ID, issue: id, merge: in.Merge})
				}})
			item := RunItem{IssueID: id, TaskID: t.ID}
			switch {
			case err != nil:
				item.Outcome, item.Error = IssueNotStarted, err.Error()
			case t.Status == StatusFailed:
				item.Outcome, item.Error = IssueFailed, failure(t)
			}
			res.Items = append(res.Items, item)
			merges = append(merges, in.Merge)
			if item.Outcome != "" {
				if t.ID != "" {
					_ = o.store.dropReadyRun(context.WithoutCancel(ctx), t.ID)
				}
				continue
			}
			wait(t.ID, len(res.Items)-1, done)
		}
		if running == 0 {
			return res, ctx.Err()
		}
		select {
		case i := <-done:
			running--
			o.finish(ctx, &res.Items[i], merges[i])
			if ctx.Err() == nil {
				if err := o.store.dropReadyRun(context.WithoutCancel(ctx), res.Items[i].TaskID); err != nil {
					slog.Warn("cannot record that run_ready finished a task", "task", res.Items[i].TaskID, "err", err)
				}
			}
		case <-ctx.Done():
			return res, ctx.Err()
		}
	}
}

// finish merges a finished task, or records why it is not merged.
func (o *Orchestrator) finish(ctx context.Context, item *RunItem, m MergeInput) {
	t, err := o.Get(ctx, item.TaskID)
	if err != nil {
		item.Outcome, item.Error = IssueFailed, err.Error()
		return
	}
	if t.MergedCommit != "" { // taken up merged: its call ended after the merge
		item.Outcome, item.Commit = IssueMerged, t.MergedCommit
		// Its issue closed before the next ready issues are read (the
		// close may be a duty left undone, being done in the background).
		if o.issues != nil && t.IssueID != "" {
			if err := o.closeMerged(ctx, t, "Merged as "+t.MergedCommit+" (task "+t.ID+")"); err != nil {
				item.Error = err.Error()
			}
		}
		return
	}
	if t.Status != StatusWaiting && t.Status != StatusCompleted {
		item.Outcome, item.Error = IssueFailed, failure(t)
		o.Finished(ctx, t) // now, so that the run returns with it recorded
		return
	}
	mr, err := o.Merge(ctx, t.ID, m)
	if err != nil && mr.Commit == "" {
		item.Outcome, item.Error = IssueNotMerged, err.Error()
		return
	}
	item.Outcome, item.Commit = IssueMerged, mr.Commit
	if err != nil {
		item.Error = err.Error()
	}
}

// failure says why t did not finish, in the words of the note on its
// issue.
func failure(t Task) string {
	switch {
	case t.Error != nil:
		return t.Error.Sentence()
	case t.Status == StatusCancelled:
		return "The agent was stopped."
	case t.Status == StatusFailed:
		return "The agent failed."
	}
	return "The agent did not finish."
}

// readyIDs returns the ids of the ready issues, in ready's order.
func (o *Orchestrator) readyIDs(ctx context.Context, in RunInput) ([]string, error) {
	return o.issues.Ready(ctx, ReadyFilter{Priority: in.Priority, Assignee: in.Assignee})
}
