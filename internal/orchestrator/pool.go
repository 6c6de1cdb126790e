package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/sudocode/sudocode/internal/gitx"
)

// pool keeps one worktree checked out ahead of time, detached at HEAD, so
// that create_task only switches it onto the task's branch (milliseconds)
// instead of checking out every file (a quarter of a second on a
// 10,000-file repository). It also tracks the worktree ids in flight —
// being created, filled, claimed or discarded, and so not (or no longer)
// recorded by a task — which Sweep must spare.
type pool struct {
	mu       sync.Mutex
	disabled bool
	closed   bool
	filling  bool
	ready    *pooled
	busy     map[string]bool
	ctx      context.Context // cancelled by Close: stops a fill
	cancel   context.CancelFunc
	wg       sync.WaitGroup // fills and discards
}

// pooled is a ready worktree: its id (the id of the task that claims it),
// its path and the commit it is detached at.
type pooled struct{ id, path, head string }

// errStale means a pooled worktree cannot be claimed (HEAD moved, or the
// worktree is no longer clean and detached at its commit).
var errStale = errors.New("the pooled worktree is stale")

func newPool(disabled bool) *pool {
	ctx, cancel := context.WithCancel(context.Background())
	return &pool{disabled: disabled, busy: map[string]bool{}, ctx: ctx, cancel: cancel}
}

// reserveID returns a new worktree id marked in flight.
func (o *Orchestrator) reserveID() string {
	id := newID()
	o.pool.mu.Lock()
	o.pool.busy[id] = true
	o.pool.mu.Unlock()
	return id
}

func (o *Orchestrator) releaseID(id string) {
	o.pool.mu.Lock()
	delete(o.pool.busy, id)
	o.pool.mu.Unlock()
}

// inFlight returns the ids of worktrees not to be swept.
func (o *Orchestrator) inFlight() map[string]bool {
	o.pool.mu.Lock()
	defer o.pool.mu.Unlock()
	ids := make(map[string]bool, len(o.pool.busy))
	for id := range o.pool.busy {
		ids[id] = true
	}
	return ids
}

// refill starts filling the pool in the background when it is empty.
func (o *Orchestrator) refill() {
	p := o.pool
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.disabled || p.closed || p.filling || p.ready != nil {
		return
	}
	p.filling = true
	id := newID()
	p.busy[id] = true
	p.wg.Add(1)
	go o.fill(id)
}

func (o *Orchestrator) fill(id string) {
	p := o.pool
	defer p.wg.Done()
	w, err := o.wt.addDetached(p.ctx, id)
	p.mu.Lock()
	p.filling = false
	if err == nil && !p.closed && p.ready == nil {
		p.ready = &w
		p.mu.Unlock()
		return
	}
	p.mu.Unlock()
	if err == nil {
		_ = o.wt.removeTree(context.Background(), w.path)
	}
	o.releaseID(id)
}

// takePooled takes the ready worktree out of the pool (nil if there is
// none); its id stays in flight, now the caller's.
func (o *Orchestrator) takePooled() *pooled {
	o.pool.mu.Lock()
	defer o.pool.mu.Unlock()
	w := o.pool.ready
	o.pool.ready = nil
	return w
}

// giveBack returns a claimed but unused worktree to the pool.
func (o *Orchestrator) giveBack(w pooled) {
	p := o.pool
	p.mu.Lock()
	if !p.closed && p.ready == nil {
		p.ready = &w
		p.mu.Unlock()
		return
	}
	p.mu.Unlock()
	o.discard(w)
}

// discard removes a pooled worktree in the background (at once after
// Close) and then releases its id.
func (o *Orchestrator) discard(w pooled) {
	p := o.pool
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		_ = o.wt.removeTree(context.Background(), w.path)
		o.releaseID(w.id)
		return
	}
	p.wg.Add(1)
	p.mu.Unlock()
	go func() {
		defer p.wg.Done()
		_ = o.wt.removeTree(context.Background(), w.path)
		o.releaseID(w.id)
	}()
}

// closePool stops a fill, waits for the background work and removes an
// unclaimed pooled worktree.
func (o *Orchestrator) closePool() {
	p := o.pool
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	w := p.ready
	p.ready = nil
	p.mu.Unlock()
	p.cancel()
	p.wg.Wait()
	if w != nil {
		_ = o.wt.removeTree(context.Background(), w.path)
		o.releaseID(w.id)
	}
}

// placeWorktree gives t a worktree on its branch (in.Branch, or one named
// after t's id): the pooled one when it is still current, else a fresh
// one. It sets t's ID, Branch, WorktreePath and BaseSHA; the id stays in
// flight for the caller to release once the task is stored. On failure
// nothing is left behind and nothing stays reserved.
func (o *Orchestrator) placeWorktree(ctx context.Context, t *Task, branch string) error {
	name := func(id string) {
		t.ID, t.Branch = id, branch
		if branch == "" {
			t.Branch = defaultBranch(t.Description, id)
		}
	}
	if w := o.takePooled(); w != nil {
		name(w.id)
		base, err := o.wt.claim(ctx, *w, t.Branch)
		if err == nil {
			t.WorktreePath, t.BaseSHA = w.path, base
			return nil
		}
		if !errors.Is(err, errStale) {
			o.giveBack(*w)
			return err
		}
		o.discard(*w)
	}
	name(o.reserveID())
	path, base, err := o.wt.Add(ctx, t.ID, t.Branch)
	if err != nil {
		o.releaseID(t.ID)
		return err
	}
	t.WorktreePath, t.BaseSHA = path, base
	return nil
}

// addDetached creates a worktree named id detached at HEAD. Only its
// registration holds the lock; checking out the files touches nothing
// shared. On failure nothing is left behind.
func (w *Worktrees) addDetached(ctx context.Context, id string) (pooled, error) {
	w.mu.Lock()
	ri, err := w.info(ctx)
	if err != nil {
		w.mu.Unlock()
		return pooled{}, err
	}
	dir, err := w.dirFor(ri)
	if err != nil {
		w.mu.Unlock()
		return pooled{}, err
	}
	path := filepath.Join(dir, id)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		w.mu.Unlock()
		return pooled{}, err
	}
	if _, err := gitWriting(ctx, w.repo, []string{dir}, "worktree", "add", "--detach", "--no-checkout", path, ri.head); err != nil {
		w.unregister(context.WithoutCancel(ctx), path)
		w.mu.Unlock()
		return pooled{}, err
	}
	w.mu.Unlock()
	if err := populate(ctx, path); err != nil {
		_ = w.removeTree(context.WithoutCancel(ctx), path)
		return pooled{}, err
	}
	return pooled{id: id, path: path, head: ri.head}, nil
}

// populate checks out the files of the new worktree at path and leaves
// its index fresh. Git compares file and index times to the second: files
// written in the second the index was written are "racily clean" and every
// later status re-reads them all (100 ms on 10,000 files), so the index is
// refreshed once that second has passed, here in the background rather
// than in the claim.
func populate(ctx context.Context, path string) error {
	if _, err := git(ctx, path, "read-tree", "--reset", "-u", "HEAD"); err != nil {
		return err
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(time.Until(time.Now().Truncate(time.Second).Add(time.Second + 50*time.Millisecond))):
	}
	_, err := git(ctx, path, "update-index", "-q", "--refresh")
	return err
}

// claim switches the pooled worktree p onto a new branch. A bad branch is
// reported as for Add (p is then still good); errStale means p cannot be
// used and a fresh worktree is needed.
func (w *Worktrees) claim(ctx context.Context, p pooled, branch string) (base string, err error) {
	// Nobody else uses a pooled worktree: its status (the slowest step) is
	// read without the lock, while the branch is checked.
	intact := make(chan bool, 1)
	go func() {
		st, err := runGit(ctx, gitx.Options{Dir: p.path}, "status", "--porcelain=v2", "--branch")
		intact <- err == nil && pooledIntact(st, p.head)
	}()
	w.mu.Lock()
	defer w.mu.Unlock()
	ri, err := w.info(ctx)
	if err != nil {
		return "", err
	}
	if err := w.checkBranch(ctx, branch); err != nil {
		return "", err
	}
	if !<-intact || ri.head != p.head {
		return "", errStale
	}
	if _, err := git(ctx, p.path, "switch", "-q", "-c", branch); err != nil {
		return "", fmt.Errorf("%w: %w", errStale, err)
	}
	return ri.head, nil
}

// pooledIntact reports whether status (git status --porcelain=v2
// --branch) shows a clean worktree detached at head.
func pooledIntact(status, head string) bool {
	oid, detached := false, false
	for line := range strings.SplitSeq(status, "\n") {
		switch {
		case line == "# branch.oid "+head:
			oid = true
		case line == "# branch.head (detached)":
			detached = true
		case strings.HasPrefix(line, "# "):
		case line != "":
			return false
		}
	}
	return oid && detached
}
