package orchestrator

import (
	"context"
	"strings"
	"time"

	"github.com/sudocode/sudocode/internal/gitx"
	"github.com/sudocode/sudocode/internal/plural"
)

// GCResult is what GC did.
type GCResult struct {
	// Removed are the tasks whose worktree was removed.
	Removed []string `json:"removed"`
	// BranchesDeleted are the branches deleted: those of removed tasks
	// that hold no commit of their own.
	BranchesDeleted []string `json:"branches_deleted"`
	// Kept are the finished tasks left alone, and why (uncommitted work).
	Kept []GCKept `json:"kept"`
}

// GCKept is a finished task GC left alone.
type GCKept struct {
	TaskID   string   `json:"task_id"`
	Worktree string   `json:"worktree"`
	Reason   string   `json:"reason"`
	Changes  []string `json:"changes,omitempty"` // git status --porcelain lines
}

// GC removes the worktrees of finished tasks (completed, failed or
// cancelled; a waiting task can still be resumed) that hold no
// uncommitted work, which end_task would otherwise be needed for. A task's
// branch is deleted with its worktree only when it has no commit since
// the task's base: committed work stays on its branch. A worktree with
// uncommitted or untracked files is never touched; it is listed in Kept.
// A client of a team collects only the tasks it owns (Owns).
func (o *Orchestrator) GC(ctx context.Context) (GCResult, error) {
	res := GCResult{Removed: []string{}, BranchesDeleted: []string{}, Kept: []GCKept{}}
	tasks, err := o.store.List(ctx)
	if err != nil {
		return res, err
	}
	for _, t := range tasks {
		if t.WorktreePath == "" || (t.Status != StatusCompleted && t.Status != StatusFailed && t.Status != StatusCancelled) || !Owns(ctx, t) {
			continue
		}
		if err := o.collect(ctx, t.ID, &res); err != nil {
			return res, err
		}
	}
	return res, nil
}

// collect removes task id's worktree if it is finished and clean.
func (o *Orchestrator) collect(ctx context.Context, id string, res *GCResult) error {
	unlock := o.lockTask(id)
	defer unlock()
	t, err := o.store.Get(ctx, id)
	if err != nil || t.WorktreePath == "" || t.Running() || t.Status == StatusWaiting || o.isRunning(id) {
		return nil
	}
	st, err := runGit(ctx, gitx.Options{Dir: t.WorktreePath}, "status", "--porcelain", "--untracked-files=all")
	if err != nil {
		res.Kept = append(res.Kept, GCKept{TaskID: id, Worktree: t.WorktreePath, Reason: "cannot read its status: " + err.Error()})
		return nil
	}
	if st != "" {
		lines := strings.Split(st, "\n")
		res.Kept = append(res.Kept, GCKept{TaskID: id, Worktree: t.WorktreePath, Changes: lines,
			Reason: plural.Count(len(lines), "uncommitted change", "uncommitted changes") + ": end_task saves them onto the branch (keepBranch) or discards them"})
		return nil
	}
	ahead, err := o.wt.CommitsAhead(ctx, t.BaseSHA, t.Branch)
	keep := err != nil || ahead > 0
	o.cleanup(ctx, t)
	// The worktree was clean: whatever cleanup left in it goes too.
	if !o.recycle(ctx, t.WorktreePath, "", snapshotCommit{}) {
		if err := o.wt.removeTree(ctx, t.WorktreePath); err != nil {
			return err
		}
	}
	rm, err := o.wt.Remove(ctx, id, "", t.Branch, keep)
	if err != nil {
		return err
	}
	res.Removed = append(res.Removed, id)
	if rm.BranchDeleted {
		res.BranchesDeleted = append(res.BranchesDeleted, t.Branch)
	}
	t.WorktreePath = ""
	t.UpdatedAt = time.Now().UTC()
	if err := o.store.Put(ctx, t); err != nil {
		return err
	}
	o.notify(Change{Kind: ChangeUpdated, Task: t})
	return nil
}
