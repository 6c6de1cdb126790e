package orchestrator

import (
	"context"
	"encoding/json"
	"time"

	"github.com/sudocode/sudocode/internal/fault"
)

// EndStatuses are the final statuses end_task may set: the user's
// requirement's completed and failed (docs/servers.md#agent-tools), and cancelled, which is also what ending a running
// task without a status gives.
var EndStatuses = []Status{StatusCompleted, StatusFailed, StatusCancelled}

// ParseEndStatus reads a final status given by a caller; anything but the
// EndStatuses is one error naming them.
func ParseEndStatus(s string) (Status, error) {
	for _, st := range EndStatuses {
		if Status(s) == st {
			return st, nil
		}
	}
	return "", fault.New(fault.Invalid, "end status must be one of completed, failed, cancelled, not %q", s).
		WithHint("or omit status (or give null): a running task is then cancelled, a waiting one completed, an ended one unchanged")
}

// EndInput is end_task's arguments.
type EndInput struct {
	// Status is the final status, one of EndStatuses, or "" for the
	// natural one (running → cancelled, waiting → completed, otherwise
	// unchanged).
	Status Status
	// Result, when given, replaces the task's result; it must be JSON.
	Result json.RawMessage
	// KeepBranch keeps the task's branch, with the worktree's uncommitted
	// work committed onto it; false deletes the branch.
	KeepBranch bool
}

// EndResult is what End did.
type EndResult struct {
	Task    Task    `json:"task"`
	Removal Removal `json:"removal"`
}

// endTask ends task id: a running agent's process group is terminated, the
// task gets its final status, its worktree is removed (its uncommitted
// work saved onto the branch when in.KeepBranch, discarded otherwise) and
// its branch deleted unless in.KeepBranch. Ending an ended task is a no-op
// that returns it. End (issue_end.go) adds what the end owes the task's
// issue.
func (o *Orchestrator) endTask(ctx context.Context, id string, in EndInput) (EndResult, error) {
	if in.Status != "" {
		if _, err := ParseEndStatus(string(in.Status)); err != nil {
			return EndResult{}, err
		}
	}
	if len(in.Result) > 0 && !json.Valid(in.Result) {
		return EndResult{}, fault.New(fault.Invalid, "result must be JSON")
	}
	t, err := o.store.Get(ctx, id)
	if err != nil {
		return EndResult{}, err
	}
	if err := CheckOwner(ctx, t); err != nil {
		return EndResult{}, err
	}
	if t.Ended() && !o.isRunning(id) {
		return EndResult{Task: t}, nil
	}
	var unlock func()
	for {
		o.mu.Lock()
		r := o.running[id]
		o.mu.Unlock()
		if r != nil {
			r.terminate(o.opts.Grace) // follow records the cancelled status before done closes
		}
		unlock = o.lockTask(id)
		if !o.isRunning(id) { // an Update may have started a run meanwhile
			break
		}
		unlock()
	}
	defer unlock()
	if t, err = o.store.Get(ctx, id); err != nil {
		return EndResult{}, err
	}
	if t.Ended() { // a concurrent End got here first
		return EndResult{Task: t}, nil
	}
	switch {
	case in.Status != "":
		t.Status = in.Status
		if in.Status == StatusCompleted {
			t.Error = nil
		}
	case t.Status == StatusPending || t.Status == StatusInProgress:
		t.Status = StatusCancelled
	case t.Status == StatusWaiting:
		t.Status = StatusCompleted
	}
	if len(in.Result) > 0 {
		t.Result = keepUsage(t.Result, in.Result)
	}
	o.cleanup(ctx, t)
	rm, err := o.wt.Remove(ctx, t.ID, t.WorktreePath, t.Branch, in.KeepBranch)
	if err != nil {
		return EndResult{Task: t, Removal: rm}, err
	}
	now := time.Now().UTC()
	t.WorktreePath = ""
	t.PID, t.OwnerPID = 0, 0
	t.UpdatedAt, t.FinishedAt = now, &now
	if err := o.store.Put(ctx, t); err != nil {
		return EndResult{}, err
	}
	o.notify(Change{Kind: ChangeUpdated, Task: t})
	return EndResult{Task: t, Removal: rm}, nil
}
