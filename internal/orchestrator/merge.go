package orchestrator

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/gitx"
	"github.com/sudocode/sudocode/internal/orchestrator/agent"
)

// Merge strategies.
const (
	MergeSquash = "squash" // one new commit on the base with the branch's changes (the default)
	MergeFF     = "ff"     // move the base to the branch tip; refused unless the base is an ancestor
	MergeCommit = "merge"  // a merge commit with the base and the branch as parents
)

// ParseMergeStrategy reads a strategy name; "" is squash.
func ParseMergeStrategy(s string) (string, error) {
	switch s {
	case "":
		return MergeSquash, nil
	case MergeSquash, MergeFF, MergeCommit:
		return s, nil
	}
	return "", fault.New(fault.Invalid, "merge strategy must be squash, ff or merge, not %q", s)
}

// PhaseCheck is the phase of the configured check command's log events.
const PhaseCheck = "check"

// MergeInput is merge_task's arguments.
type MergeInput struct {
	Strategy string // "": the project's merge.strategy, else squash
	Message  string // the commit message (squash, merge); "": the task's description
	// KeepBranch keeps the task's branch after the merge; nil: the
	// project's merge.keep_branch.
	KeepBranch *bool
}

// MergeResult is what Merge did.
type MergeResult struct {
	Task     Task     `json:"task"`
	Strategy string   `json:"strategy"`
	Base     string   `json:"base"`   // the branch merged into
	Commit   string   `json:"commit"` // the base's new tip
	Files    []string `json:"files"`  // the files the merge changed on the base
	Removal  Removal  `json:"removal"`
	// The task's issue, which the merge closed, and the reason it was
	// closed with; empty for a task of no issue.
	IssueID     string `json:"issue_id,omitempty"`
	CloseReason string `json:"close_reason,omitempty"`
}

// mergeBranch merges task id's branch into the branch the user's checkout has
// checked out. The merge is computed without touching any work tree (git
// merge-tree); a conflict refuses it with the conflicting files. Then the
// project's merge.check runs on the merged tree in the task's worktree and
// must succeed. Only then does the base move, by a fast-forward of the
// user's checkout to the prepared commit, which git refuses as a whole
// when uncommitted changes there touch the same files (they are listed
// first): the checkout is either merged or as it was, never in between.
// On success the task is completed and its worktree removed (and its
// branch, unless kept). Merge (issue_merge.go) adds what the merge owes
// the task's issue.
func (o *Orchestrator) mergeBranch(ctx context.Context, id string, in MergeInput) (MergeResult, error) {
	// An unknown task, or another client's, is refused before the
	// project's settings are read.
	if t, err := o.store.Get(ctx, id); err != nil {
		return MergeResult{}, err
	} else if err := CheckOwner(ctx, t); err != nil {
		return MergeResult{}, err
	} else if t.WorktreePath != "" {
		// The snapshot's git calls run in the worktree's box: built on
		// the other core while the settings are read.
		go gitx.Prewarm(context.WithoutCancel(ctx), t.WorktreePath)
	}
	top, settings, err := o.wt.settings(ctx)
	if err == nil && len(settings.Merge.Check) > 0 {
		err = settings.mayRun("merge")
	}
	if err != nil {
		return MergeResult{}, err
	}
	if in.Strategy == "" {
		in.Strategy = settings.Merge.Strategy
	}
	strategy, err := ParseMergeStrategy(in.Strategy)
	if err != nil {
		return MergeResult{}, err
	}
	keep := settings.Merge.KeepBranch
	if in.KeepBranch != nil {
		keep = *in.KeepBranch
	}
	unlock := o.lockTask(id)
	defer unlock()
	t, err := o.store.Get(ctx, id) // again, under the task's lock
	if err != nil {
		return MergeResult{}, err
	}
	if err := mergeable(t); err != nil {
		return MergeResult{}, err
	}
	// The agent's uncommitted work goes with the merge: it is committed
	// on top of the branch, but the branch moves there only once the
	// merge is done, so that a refused merge changes nothing.
	// The merge's git calls in the checkout run in a box of their own:
	// built on the other core while the snapshot reads the worktree.
	go gitx.Prewarm(context.WithoutCancel(ctx), top)
	var work snapshotCommit
	if t.WorktreePath != "" {
		if _, err := os.Stat(t.WorktreePath); err == nil {
			work, err = o.wt.snapshotKeeping(ctx, t.ID, t.WorktreePath, t.Branch)
			defer work.index.remove()
			if err != nil {
				return MergeResult{}, err
			}
		}
	}
	msg := in.Message
	if strings.TrimSpace(msg) == "" {
		msg = t.Description
	}
	tip := work.commit
	if work.old == "" {
		tip = "" // no branch to merge: planMerge says so
	}
	plan, landed, err := o.landedMerge(ctx, t, top)
	if err != nil {
		return MergeResult{}, err
	}
	if !landed {
		if plan, err = o.land(ctx, t, tip, strategy, msg, settings, top); err != nil {
			return MergeResult{}, err
		}
	}
	// A kept branch holds what was merged (one deleted below need not),
	// and the worktree has nothing left that was not: nothing is reported
	// discarded.
	if keep {
		if err := o.wt.keep(ctx, t.ID, t.WorktreePath, t.Branch, work); err != nil {
			return MergeResult{}, fault.Wrap(fault.Internal, err, "merged as "+plan.commit+", but the task's branch could not be moved to what was merged")
		}
	}
	note := agent.Event{Time: time.Now().UTC(), Kind: agent.KindLog,
		Text: fmt.Sprintf("merged into %s as %s (%s)", plan.base, plan.commit, strategy),
		Data: map[string]any{"phase": "merge", "commit": plan.commit, "base": plan.base}}
	_, _ = o.store.AppendEvents(ctx, t.ID, []agent.Event{note})
	o.cleanup(ctx, t)
	var rm Removal
	path := t.WorktreePath
	if path != "" && o.recycle(ctx, path, plan.commit, work) {
		path = "" // it is a warm worktree now, detached: the branch can go
	}
	rm.BranchDeleted, err = o.wt.drop(ctx, t.ID, path, t.Branch, keep)
	now := time.Now().UTC()
	t.Status, t.Error = StatusCompleted, nil
	t.MergedCommit, t.MergeConflict = plan.commit, nil
	t.WorktreePath = ""
	t.PID, t.OwnerPID = 0, 0
	t.UpdatedAt, t.FinishedAt = now, &now
	if perr := o.store.Put(ctx, t); perr != nil && err == nil {
		err = perr
	}
	if perr := o.store.dropMergeIntent(ctx, t.ID); perr != nil && err == nil {
		err = perr
	}
	o.notify(Change{Kind: ChangeUpdated, Task: t})
	res := MergeResult{Task: t, Strategy: strategy, Base: plan.base, Commit: plan.commit, Files: plan.files, Removal: rm}
	if err != nil {
		// The merge is done; only tidying up failed. Say so, with the commit.
		return res, fault.Wrap(fault.Internal, err, "merged as "+plan.commit+", but removing the task's worktree failed")
	}
	return res, nil
}

// land merges task t's work, tip, into the checkout at top as strategy
// asks: plans the merge, runs the project's check on it, records the
// intent (landedMerge) and moves the checkout's branch.
func (o *Orchestrator) land(ctx context.Context, t Task, tip, strategy, msg string, settings Settings, top string) (mergePlan, error) {
	plan, err := o.wt.planMerge(ctx, t, tip, strategy, msg)
	if len(plan.conflicts) > 0 { // the task reads conflicted until its agent runs again
		t.MergeConflict = plan.conflicts
		if perr := o.store.Put(ctx, t); perr == nil {
			o.notify(Change{Kind: ChangeUpdated, Task: t})
		}
	}
	if err != nil {
		return plan, err
	}
	if len(settings.Merge.Check) > 0 {
		if err := o.check(ctx, t, plan.commit, settings, top); err != nil {
			return plan, err
		}
	}
	if err := o.store.putMergeIntent(ctx, t.ID, plan.commit, plan.base); err != nil {
		return plan, err
	}
	if err := o.wt.advance(ctx, plan); err != nil {
		// Not landed; an intent left here is dropped by the next merge.
		_ = o.store.dropMergeIntent(context.WithoutCancel(ctx), t.ID)
		return plan, err
	}
	return plan, nil
}

// mergeable refuses a task whose branch is not ready to merge.
func mergeable(t Task) error {
	switch t.Status {
	case StatusPending, StatusInProgress:
		return fault.New(fault.Conflict, "task %s is still running", t.ID).
			WithHint("wait for the agent to finish (report_task), or end it with end_task")
	case StatusFailed, StatusCancelled:
		why := string(t.Status)
		if t.Error != nil {
			why += " (" + t.Error.Type + ")"
		}
		return fault.New(fault.Conflict, "task %s %s: its branch is not merged", t.ID, why).
			WithHint("look at report_task; give the agent new instructions with update_task, or end the task")
	}
	return nil // an ended task whose branch was kept merges too
}

// check runs the project's check command on commit (the merge result) in
// a temporary worktree beside the task's (with the project's copied
// files), removed afterwards, so that what the check builds never reaches
// the task's branch. A failure or a non-zero exit refuses the merge.
func (o *Orchestrator) check(ctx context.Context, t Task, commit string, settings Settings, top string) error {
	c := settings.Merge.Check
	dir, err := o.wt.checkoutAt(ctx, t.ID+"-check", commit)
	if err != nil {
		return err
	}
	defer func() { _ = o.wt.removeTree(context.WithoutCancel(ctx), dir) }()
	if _, err := copyInto(top, dir, settings.Copy); err != nil {
		return fault.Wrap(fault.Unavailable, err, "failed to prepare the check's worktree")
	}
	cfg, _ := decodeConfig(t.Config)
	r := &run{done: make(chan struct{})}
	o.mu.Lock()
	o.running[t.ID] = r // End stops the check as it would an agent
	o.mu.Unlock()
	out, err := o.runPhase(t.ID, r, PhaseCheck, c, agent.RunSpec{Dir: dir, Config: cfg})
	o.mu.Lock()
	delete(o.running, t.ID)
	o.mu.Unlock()
	close(r.done)
	switch {
	case err != nil:
		return fault.Wrap(fault.Unavailable, err, "the check command "+c.String()+" could not start")
	case out.cancelled:
		return fault.New(fault.Conflict, "the check command %s was stopped; nothing was merged", c.String())
	case out.exitCode != 0:
		return fault.New(fault.Conflict, "the check command %s failed with exit code %d; nothing was merged: %s",
			c.String(), out.exitCode, strings.TrimSpace(out.stderr)).
			WithHint("its output is in the task's log (phase check); fix it with update_task, then merge again")
	}
	return nil
}
