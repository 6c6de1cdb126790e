package orchestrator

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"time"

	"github.com/sudocode/sudocode/internal/fault"
)

// Sweep cleans up after crashes; run it once at startup, after New. It
// removes every directory under the worktree directory that no task owns
// (a pooled worktree of a previous server, a create interrupted
// mid-way), prunes git's registrations of vanished worktrees, and clears
// the WorktreePath of tasks (not running) whose worktree vanished. It
// never touches anything outside the worktree directory, nor branches.
// It returns the paths it removed.
//
// Several servers sharing one repository's worktree directory should not
// sweep while another one creates tasks: only this server's own worktrees
// in flight are known to it.
func (o *Orchestrator) Sweep(ctx context.Context) (removed []string, err error) {
	dir, err := o.wt.Dir(ctx)
	if err != nil {
		return nil, err
	}
	// Read in this order: a directory present in the listing is either
	// still in flight at the second read, or already owned by a stored
	// task at the third.
	ents, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fault.Wrap(fault.Unavailable, err, "failed to read the worktree directory")
	}
	busy := o.inFlight()
	tasks, err := o.store.List(ctx)
	if err != nil {
		return nil, err
	}
	owned := map[string]bool{}
	for _, t := range tasks {
		if t.WorktreePath != "" {
			owned[filepath.Clean(t.WorktreePath)] = true
		}
	}
	for _, e := range ents {
		path := filepath.Join(dir, e.Name())
		if busy[e.Name()] || owned[path] {
			continue
		}
		if err := o.wt.removeTree(ctx, path); err != nil {
			return removed, err
		}
		removed = append(removed, path)
	}
	o.wt.prune(ctx)
	for _, t := range tasks {
		if t.WorktreePath == "" || t.Running() {
			continue
		}
		if _, err := os.Stat(t.WorktreePath); !errors.Is(err, os.ErrNotExist) {
			continue
		}
		unlock := o.lockTask(t.ID)
		if cur, err := o.store.Get(ctx, t.ID); err == nil && cur.WorktreePath == t.WorktreePath && !o.isRunning(t.ID) {
			cur.WorktreePath = ""
			cur.UpdatedAt = time.Now().UTC()
			if err := o.store.Put(ctx, cur); err == nil {
				o.notify(Change{Kind: ChangeUpdated, Task: cur})
			}
		}
		unlock()
	}
	return removed, nil
}
