package orchestrator

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/orchestrator/agent"
)

// UpdateInput is update_task's arguments; zero fields are left alone.
type UpdateInput struct {
	// Instructions continue the task: the agent runs again in the same
	// worktree, resuming its session when it has one. Only for a task that
	// is not running and still has its worktree.
	Instructions string
	// Status is a manual status change (not while running): waiting,
	// completed or failed. in_progress is accepted only for a running
	// task, where it changes nothing.
	Status Status
	Log    string          // appended to the task log as a "log" event
	Result json.RawMessage // replaces the task's result
}

// updateTask applies in to task id; Update (issue_review.go) adds what a
// review owes the task's issue.
func (o *Orchestrator) updateTask(ctx context.Context, id string, in UpdateInput) (Task, error) {
	unlock := o.lockTask(id)
	defer unlock()
	t, err := o.store.Get(ctx, id)
	if err != nil {
		return Task{}, err
	}
	if err := CheckOwner(ctx, t); err != nil {
		return Task{}, err
	}
	running := o.isRunning(id)
	switch in.Status {
	case "", StatusWaiting, StatusCompleted, StatusFailed:
	case StatusInProgress:
		if !running {
			return Task{}, fault.New(fault.Conflict, "task %s is not running (it is %s)", id, t.Status).
				WithHint("give instructions to run the agent again")
		}
		in.Status = "" // already so
	case StatusPending, StatusCancelled:
		return Task{}, fault.New(fault.Invalid, "status %s is set by the orchestrator", in.Status).
			WithHint("give instructions to run the agent again, or end the task")
	default:
		return Task{}, fault.New(fault.Invalid, "unknown status %q", in.Status)
	}
	if in.Instructions != "" && in.Status != "" {
		return Task{}, fault.New(fault.Invalid, "give either new instructions or a status, not both")
	}
	if len(in.Result) > 0 && !json.Valid(in.Result) {
		return Task{}, fault.New(fault.Invalid, "result must be JSON")
	}
	if (in.Instructions != "" || in.Status != "") && running {
		return Task{}, fault.New(fault.Conflict, "task %s is running", id).
			WithHint("wait until it is waiting or completed, or end it")
	}
	var ad agent.Adapter
	if in.Instructions != "" {
		if t.WorktreePath == "" {
			return Task{}, fault.New(fault.Conflict, "task %s has ended; its worktree is gone", id)
		}
		var ok bool
		if ad, ok = o.lookup(t.Agent); !ok {
			return Task{}, fault.New(fault.Invalid, "unknown tool %q", t.Agent)
		}
	}
	if in.Log != "" {
		ev := agent.Event{Time: time.Now().UTC(), Kind: agent.KindLog, Text: in.Log, Data: map[string]any{"source": "update_task"}}
		seq, err := o.store.AppendEvents(ctx, id, []agent.Event{ev})
		if err != nil {
			return Task{}, err
		}
		o.notify(Change{Kind: ChangeLog, Task: t, LastSeq: seq})
	}
	if len(in.Result) > 0 {
		t.Result = in.Result
	}
	if in.Status != "" {
		t.Status = in.Status
		if in.Status != StatusFailed {
			t.Error = nil
		}
	}
	t.UpdatedAt = time.Now().UTC()
	if in.Instructions == "" {
		if len(in.Result) > 0 || in.Status != "" {
			if err := o.store.Put(ctx, t); err != nil {
				return Task{}, err
			}
			o.notify(Change{Kind: ChangeUpdated, Task: t})
		}
		return t, nil
	}
	cfg, err := decodeConfig(t.Config)
	if err != nil {
		return Task{}, err
	}
	t.Instructions = in.Instructions
	ri, err := o.wt.place(ctx)
	if err != nil {
		return Task{}, err
	}
	return o.start(ctx, t, ad, o.runSpec(t, ri.top, cfg, in.Instructions, t.SessionID), nil, strings.TrimSpace(in.Instructions))
}

func (o *Orchestrator) isRunning(id string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.running[id] != nil
}
