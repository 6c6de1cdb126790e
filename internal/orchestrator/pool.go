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

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/gitx"
)

// pool keeps warm worktrees: checked out ahead of time and detached at a
// commit, so that create_task only brings one forward to HEAD (the files
// that differ) and switches it onto the task's branch, instead of
// checking out every file (seconds on a 10,000-file repository on a slow
// disk). They live on disk, under the worktree directory as warm-<id>,
// for any process of the repository to claim: a server or a one-shot
// `task start` finds the one an earlier run left, and a merged or
// collected task's worktree becomes one instead of being deleted file by
// file (see recycle). Names in flight are locked across processes (see
// nameLocks).
type pool struct {
	mu       sync.Mutex
	disabled bool
	closed   bool
	filling  bool
	locks    nameLocks
	ctx      context.Context // cancelled by Close: stops a fill, a discard, the tidy-up
	cancel   context.CancelFunc
	wg       sync.WaitGroup // background work
}

// pooled is a warm worktree this process holds the lock of: its id (the
// id of the task that claims it), its path and the worktree directory.
type pooled struct{ id, path, dir string }

const (
	// warmPrefix names a complete warm worktree, free to claim.
	warmPrefix = "warm-"
	// warmKeep is how many warm worktrees a repository keeps at most: one
	// for the next task, one more for a task started at the same time.
	warmKeep = 2
)

// errStale means a warm worktree cannot be claimed (it is no longer clean
// and detached), and a fresh worktree is needed.
var errStale = errors.New("the warm worktree is stale")

func newPool(disabled bool) *pool {
	ctx, cancel := context.WithCancel(context.Background())
	return &pool{disabled: disabled, ctx: ctx, cancel: cancel}
}

// reserve locks a new worktree id under the worktree directory dir:
// nothing sweeps or claims it until release.
func (o *Orchestrator) reserve(dir string) (string, error) {
	for {
		id := newID()
		ok, err := o.pool.locks.tryLock(dir, id)
		if err != nil {
			return "", fault.Wrap(fault.Unavailable, err, "failed to lock a worktree name under "+dir)
		}
		if ok {
			return id, nil
		}
	}
}

func (o *Orchestrator) release(dir, id string) { o.pool.locks.unlock(dir, id) }

// warmIn lists the names of the warm worktrees under dir.
func warmIn(dir string) []string {
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		if e.IsDir() && strings.HasPrefix(e.Name(), warmPrefix) {
			names = append(names, e.Name())
		}
	}
	return names
}

// background runs f in the background until Close, which cancels its
// context and waits for it; it reports false after Close.
func (o *Orchestrator) background(f func(ctx context.Context)) bool {
	p := o.pool
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		f(p.ctx)
	}()
	return true
}

// refill checks out a warm worktree in the background when the
// repository has none.
func (o *Orchestrator) refill() {
	p := o.pool
	p.mu.Lock()
	if p.disabled || p.closed || p.filling {
		p.mu.Unlock()
		return
	}
	p.filling = true
	p.mu.Unlock()
	if !o.background(o.fill) {
		p.mu.Lock()
		p.filling = false
		p.mu.Unlock()
	}
}

// fill checks out a worktree detached at HEAD under a locked name, and
// names it warm once complete. Stopped half-way (Close), it removes what
// it checked out before Close returns (addDetached).
func (o *Orchestrator) fill(ctx context.Context) {
	defer func() {
		o.pool.mu.Lock()
		o.pool.filling = false
		o.pool.mu.Unlock()
	}()
	dir, err := o.wt.Dir(ctx)
	if err != nil || len(warmIn(dir)) > 0 {
		return
	}
	id, err := o.reserve(dir)
	if err != nil {
		return
	}
	defer o.release(dir, id)
	path, err := o.wt.addDetached(ctx, dir, id)
	if err != nil {
		return
	}
	_ = o.wt.move(ctx, path, filepath.Join(dir, warmPrefix+id))
}

// takeWarm locks a warm worktree under dir; false when none is free.
func (o *Orchestrator) takeWarm(dir string) (pooled, bool) {
	if o.pool.disabled {
		return pooled{}, false
	}
	for _, name := range warmIn(dir) {
		ok, err := o.pool.locks.tryLock(dir, name)
		if err != nil || !ok {
			continue
		}
		path := filepath.Join(dir, name)
		if _, err := os.Stat(path); err == nil { // not claimed since the listing
			return pooled{id: strings.TrimPrefix(name, warmPrefix), path: path, dir: dir}, true
		}
		o.pool.locks.unlock(dir, name)
	}
	return pooled{}, false
}

// discard removes the warm worktree w, whose lock the caller holds, in
// the background: renamed first to its plain id (a process killed during
// the removal leaves it to the next Sweep), and removed whole even when
// Close comes meanwhile (Close waits for it).
func (o *Orchestrator) discard(w pooled) {
	defer o.pool.locks.unlock(w.dir, warmPrefix+w.id)
	ok, err := o.pool.locks.tryLock(w.dir, w.id)
	if err != nil || !ok {
		return
	}
	plain := filepath.Join(w.dir, w.id)
	if os.Rename(w.path, plain) != nil || !o.background(func(ctx context.Context) {
		defer o.release(w.dir, w.id)
		_ = o.wt.removeTree(context.WithoutCancel(ctx), plain)
	}) {
		o.release(w.dir, w.id)
	}
}

// closePool stops the background work and releases every lock; warm
// worktrees stay for the next run.
func (o *Orchestrator) closePool() {
	p := o.pool
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	p.mu.Unlock()
	p.cancel()
	p.wg.Wait()
	p.locks.unlockAll()
}

// placeWorktree gives t a worktree on its branch (in.Branch, or one named
// after t's id): a warm one when there is one, else a fresh one. It sets
// t's ID, Branch, WorktreePath and BaseSHA; the id stays locked for the
// caller to release once the task is stored. On failure nothing is left
// behind and nothing stays locked.
func (o *Orchestrator) placeWorktree(ctx context.Context, t *Task, branch string) error {
	name := func(id string) {
		t.ID, t.Branch = id, branch
		if branch == "" {
			t.Branch = defaultBranch(t.Description, id)
		}
	}
	dir, err := o.wt.Dir(ctx)
	if err != nil {
		return err
	}
	if w, ok := o.takeWarm(dir); ok {
		if ok, err := o.pool.locks.tryLock(dir, w.id); err == nil && ok {
			name(w.id)
			base, err := o.wt.claim(ctx, w, t.Branch)
			if err == nil {
				o.pool.locks.unlock(dir, warmPrefix+w.id)
				t.WorktreePath, t.BaseSHA = filepath.Join(dir, w.id), base
				return nil
			}
			o.release(dir, w.id)
			if !errors.Is(err, errStale) {
				o.pool.locks.unlock(dir, warmPrefix+w.id) // a bad branch: the warm worktree is untouched
				return err
			}
		}
		o.discard(w)
	}
	id, err := o.reserve(dir)
	if err != nil {
		return err
	}
	name(id)
	path, base, err := o.wt.Add(ctx, t.ID, t.Branch)
	if err != nil {
		o.release(dir, id)
		return err
	}
	t.WorktreePath, t.BaseSHA = path, base
	return nil
}

// recycle makes the worktree at path, of a task just merged or collected,
// a warm one at head (HEAD when "") when the repository keeps fewer than
// warmKeep, and reports whether it did (the caller removes it otherwise).
// Everything in it goes back to head and untracked and ignored files are
// removed, so the next task starts from what a fresh checkout holds; only
// the files that differ are written, where deleting the worktree and
// checking out a new one writes them all.
func (o *Orchestrator) recycle(ctx context.Context, path, head string, from snapshotCommit) bool {
	dir := filepath.Dir(path)
	if o.pool.disabled || len(warmIn(dir)) >= warmKeep {
		return false
	}
	if !o.wt.ownWorktree(ctx, path) {
		return false
	}
	if head == "" {
		var err error
		if head, err = git(ctx, o.wt.repo, "rev-parse", "--verify", "--quiet", "HEAD^{commit}"); err != nil {
			return false
		}
	}
	if !o.wt.resetFrom(ctx, path, head, from) {
		if _, err := git(ctx, path, "checkout", "-q", "--detach", "--force", head); err != nil {
			return false
		}
	}
	// Untracked files the snapshot held are gone with the reset; ignored
	// ones the claim removes (it reads the status anyway), not the merge.
	return o.wt.move(ctx, path, filepath.Join(dir, warmPrefix+newID())) == nil
}

// resetFrom makes the worktree at path hold head, detached, starting from
// the snapshot s just taken of it (when it kept its temporary index): that
// index matches the worktree file for file, with fresh stat data, so
// reading head's tree into it with a two-way merge from the snapshot's
// tree writes only the files that differ, where a checkout --force
// would check every file again. The index then becomes the worktree's.
// It reports false when it did not finish; the caller checks out head.
func (w *Worktrees) resetFrom(ctx context.Context, path, head string, s snapshotCommit) bool {
	if s.index.path == "" || s.tree == "" {
		return false
	}
	if _, err := gitWith(ctx, path, s.index.env, "read-tree", "-m", "-u", s.tree, head); err != nil {
		return false
	}
	admin, ok := w.adminDir(ctx, path)
	if !ok || os.Rename(s.index.path, filepath.Join(admin, "index")) != nil {
		return false
	}
	_, err := git(ctx, path, "update-ref", "--no-deref", "-m", "sudocode: warm at the merge", "HEAD", head)
	return err == nil
}

// addDetached creates the worktree id under dir detached at HEAD. Only its
// registration holds the lock; checking out the files touches nothing
// shared. On failure nothing is left behind, except when ctx was
// cancelled (a closing process leaves the rest to the next Sweep).
func (w *Worktrees) addDetached(ctx context.Context, dir, id string) (string, error) {
	w.mu.Lock()
	ri, err := w.info(ctx)
	if err != nil {
		w.mu.Unlock()
		return "", err
	}
	path := filepath.Join(dir, id)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		w.mu.Unlock()
		return "", err
	}
	// Not stopped half-way (see Add); without the checkout it
	// takes milliseconds.
	if _, err := w.addWorktree(context.WithoutCancel(ctx), dir, "--detach", "--no-checkout", path, ri.head); err != nil {
		w.unregister(context.WithoutCancel(ctx), path)
		w.mu.Unlock()
		return "", err
	}
	w.mu.Unlock()
	if err := populate(ctx, path); err != nil {
		// Stopped by Close too: what was checked out goes, so that no
		// half-made worktree outlives the process (Close waits for it).
		_ = w.removeTree(context.WithoutCancel(ctx), path)
		return "", err
	}
	return path, nil
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

// move renames the worktree at from to to, with its registration: the
// directory, then the path its administrative directory records
// (gitdir, as gitrepository-layout describes it and git worktree repair
// rewrites it). Done here rather than by git worktree move, whose sandbox
// would cost a box of its own for a rename; the worktree's own .git file,
// which names the administrative directory, is read but never followed
// or written.
func (w *Worktrees) move(ctx context.Context, from, to string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.moveLocked(ctx, from, to)
}

// moveLocked is move for a caller that holds w.mu.
func (w *Worktrees) moveLocked(ctx context.Context, from, to string) error {
	admin, ok := w.adminDir(ctx, from)
	if !ok {
		return fmt.Errorf("%s is not a worktree of this repository", from)
	}
	if err := os.Rename(from, to); err != nil {
		return err
	}
	if err := writeAtomic(filepath.Join(admin, "gitdir"), []byte(filepath.Join(to, ".git")+"\n")); err != nil {
		_ = os.Rename(to, from)
		return err
	}
	return nil
}

// writeAtomic replaces the file at path with b, through a file beside it.
func writeAtomic(path string, b []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".sudocode-")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// claim brings the warm worktree p forward to HEAD, switches it onto a new
// branch and renames it to its id. A bad branch is reported as for Add (p
// is then untouched); errStale means p cannot be used and a fresh
// worktree is needed.
func (w *Worktrees) claim(ctx context.Context, p pooled, branch string) (base string, err error) {
	// Nobody else uses a locked warm worktree: its status (the slowest
	// step) is read without the lock, while the branch is checked. The
	// read ends before claim returns, whatever it returns: git status
	// refreshes the index, and must not write in the repository after
	// its owner has closed.
	at := make(chan string, 1)
	go func() {
		st, err := runGit(ctx, gitx.Options{Dir: p.path}, "status", "--porcelain=v2", "--branch", "--ignored")
		commit, ignored := cleanDetachedAt(st)
		if err == nil && ignored && commit != "" {
			if _, err = git(ctx, p.path, "clean", "-q", "-ffdx"); err != nil {
				commit = ""
			}
		}
		if err != nil {
			commit = ""
		}
		at <- commit
		close(at)
	}()
	defer func() {
		for range at { // until the read has ended, if claim did not wait for it
		}
	}()
	if err := w.validBranch(ctx, branch); err != nil {
		return "", err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	ri, err := w.info(ctx)
	if err != nil {
		return "", err
	}
	if err := w.freeBranch(ctx, branch); err != nil {
		return "", err
	}
	commit := <-at
	if commit == "" {
		return "", errStale
	}
	if commit != ri.head {
		if _, err := git(ctx, p.path, "checkout", "-q", "--detach", ri.head); err != nil {
			return "", fmt.Errorf("%w: %w", errStale, err)
		}
	}
	if _, err := git(ctx, p.path, "switch", "-q", "-c", branch); err != nil {
		return "", fmt.Errorf("%w: %w", errStale, err)
	}
	if err := w.moveLocked(ctx, p.path, filepath.Join(p.dir, p.id)); err != nil {
		_, _ = git(ctx, p.path, "switch", "-q", "--detach")
		_, _ = git(ctx, w.repo, "branch", "-D", branch)
		return "", fmt.Errorf("%w: %w", errStale, err)
	}
	return ri.head, nil
}

// cleanDetachedAt returns the commit that status (git status
// --porcelain=v2 --branch --ignored) shows a clean worktree detached at,
// or "", and whether it lists ignored files (which a clean removes).
func cleanDetachedAt(status string) (commit string, ignored bool) {
	oid, detached := "", false
	for line := range strings.SplitSeq(status, "\n") {
		switch {
		case strings.HasPrefix(line, "# branch.oid "):
			oid = strings.TrimPrefix(line, "# branch.oid ")
		case line == "# branch.head (detached)":
			detached = true
		case strings.HasPrefix(line, "# "):
		case strings.HasPrefix(line, "! "):
			ignored = true
		case line != "":
			return "", false
		}
	}
	if !detached {
		return "", false
	}
	return oid, ignored
}
