package orchestrator

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sudocode/sudocode/internal/fault"
)

// Sweep cleans up after crashes; a server runs it once at startup. It
// removes every directory under the worktree directory that no task owns
// and no process has in flight (a create or a fill interrupted mid-way, a
// warm worktree half-removed), prunes git's registrations of vanished
// worktrees, and clears the WorktreePath of tasks (not running) whose
// worktree vanished. Warm worktrees stay, for any process to claim. It
// never touches anything outside the worktree directory, nor branches.
// It returns the paths it removed.
//
// Processes sharing the repository (servers, CLI runs) need not agree on
// when to sweep: a worktree in flight holds the lock of its name (see
// nameLocks) until a stored task owns it, and Sweep takes that lock
// before it reads which tasks own what.
func (o *Orchestrator) Sweep(ctx context.Context) (removed []string, err error) {
	dir, err := o.wt.Dir(ctx)
	if err != nil {
		return nil, err
	}
	ents, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fault.Wrap(fault.Unavailable, err, "failed to read the worktree directory")
	}
	var locked []string
	defer func() {
		for _, name := range locked {
			o.release(dir, name)
		}
	}()
	present := map[string]bool{}
	for _, e := range ents {
		name := e.Name()
		present[name] = true
		if strings.HasPrefix(name, ".") || strings.HasPrefix(name, warmPrefix) {
			continue
		}
		if ok, err := o.pool.locks.tryLock(dir, name); err == nil && ok {
			locked = append(locked, name)
		}
	}
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
	for _, name := range locked {
		path := filepath.Join(dir, name)
		if owned[path] {
			continue
		}
		if err := o.wt.removeTree(ctx, path); err != nil {
			return removed, err
		}
		removed = append(removed, path)
	}
	o.sweepLocks(dir, present)
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

// sweepLocks removes the lock files of names that are neither present
// under dir nor held.
func (o *Orchestrator) sweepLocks(dir string, present map[string]bool) {
	ents, _ := os.ReadDir(filepath.Join(dir, locksDir))
	for _, e := range ents {
		if name := e.Name(); !present[name] {
			if ok, err := o.pool.locks.tryLock(dir, name); err == nil && ok {
				o.release(dir, name)
			}
		}
	}
}
