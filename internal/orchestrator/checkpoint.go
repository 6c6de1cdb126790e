package orchestrator

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/sudocode/sudocode/internal/gitx"
	"github.com/sudocode/sudocode/internal/orchestrator/agent"
)

// A worker running an agent over its own clone saves the agent's work
// now and then to the run's remote, so that the worker taking the run
// after this one is lost (killed, cut off) resumes the work, and the
// agent's session where its CLI can, instead of starting over.

// checkpointRefs is the folder of task's run n's checkpoint refs: beside
// RunRef, which is a ref itself (no ref may live below it).
func checkpointRefs(task string, run int) string {
	return "refs/sudocode/checkpoints/" + task + "/" + strconv.Itoa(run) + "/"
}

// CheckpointRef holds the work in progress of task's run n: a commit
// whose parent is the worktree's HEAD (the agent's commits kept) and
// whose tree is the worktree with its uncommitted and untracked files.
func CheckpointRef(task string, run int) string { return checkpointRefs(task, run) + "work" }

// SessionRef holds the agent CLI's session file of the same run, for the
// CLIs that resume a session from a file placed on another machine: a
// commit whose tree is that one file, under its own name. A ref of its
// own rather than a reserved path in the checkpoint's tree: the work is
// the worktree exactly (no path of a project's taken), and the session,
// which changes on every turn while the tree mostly does not, is pushed
// alone when only it changed.
func SessionRef(task string, run int) string { return checkpointRefs(task, run) + "session" }

// maxSessionBytes bounds a session file saved or placed: one read from a
// remote is untrusted.
const maxSessionBytes = 64 << 20

// checkpointer saves a run's checkpoints while its agent runs: after the
// agent's events show progress, at most once per every (the first every
// after the start), and only what changed since the last one pushed.
type checkpointer struct {
	o       *Orchestrator
	a       Assignment
	dir     string       // the worktree
	session *sessionHome // nil: the CLI's session is not saved
	every   time.Duration

	mu        sync.Mutex
	sessionID string // the agent's, as its events say

	poke chan struct{}
	// ctx ends with close, cutting off a checkpoint being saved (a push
	// to a remote that does not answer must not hold the run's end).
	ctx  context.Context
	stop context.CancelFunc
	done chan struct{}
	// What the last checkpoint pushed held (only the loop touches them).
	head, tree string
	sessionAt  sessionStamp
	pushed     bool // any checkpoint was pushed; read once the loop is done
}

// pushedAny reports whether c pushed a checkpoint; c is closed.
func (c *checkpointer) pushedAny() bool { return c.pushed }

// sessionStamp tells a session file's versions apart without reading it.
type sessionStamp struct {
	name string
	size int64
	mod  time.Time
}

// startCheckpoints starts saving a's run in the worktree at dir, from
// the state it is in now (which needs no checkpoint); close it before the
// run's end.
func (o *Orchestrator) startCheckpoints(a Assignment, dir string, session *sessionHome) *checkpointer {
	c := &checkpointer{o: o, a: a, dir: dir, session: session, every: o.opts.CheckpointEvery,
		poke: make(chan struct{}, 1), done: make(chan struct{})}
	c.ctx, c.stop = context.WithCancel(context.Background())
	c.head, c.tree, _ = commitAndTree(c.ctx, dir, "HEAD")
	go c.loop()
	return c
}

// observe reads the agent's events as they come: its session, and
// whether they show progress (a tool's result; a COMMAND's output line).
func (c *checkpointer) observe(evs []agent.Event) {
	progress := false
	for _, e := range evs {
		if e.SessionID != "" {
			c.mu.Lock()
			c.sessionID = e.SessionID
			c.mu.Unlock()
		}
		progress = progress || e.Kind == agent.KindToolResult || e.Kind == agent.KindFileChange ||
			c.a.Agent == agent.ToolCommand && e.Kind == agent.KindLog
	}
	if progress {
		select {
		case c.poke <- struct{}{}:
		default:
		}
	}
}

// close stops the checkpoints.
func (c *checkpointer) close() {
	c.stop()
	<-c.done
}

// finalWait bounds the last checkpoint of a run its worker gives back.
const finalWait = 30 * time.Second

// final saves a last checkpoint, c closed and its agent stopped: a
// worker that stops gives its runs back with the work done since the
// last one, still holding their leases (no other worker has them yet).
func (c *checkpointer) final() {
	ctx, cancel := context.WithTimeout(context.Background(), finalWait)
	defer cancel()
	c.save(ctx)
}

func (c *checkpointer) loop() {
	defer close(c.done)
	tick := time.NewTicker(c.every)
	defer tick.Stop()
	// The first checkpoint comes every after the start at the earliest: a
	// run shorter than that (most of a busy fleet's) saves none, and a
	// worker lost in it loses at most that much of the agent's work.
	last := time.Now()
	var due <-chan time.Time // progress seen within every of the last checkpoint
	for {
		select {
		case <-c.ctx.Done():
			return
		case <-c.poke:
			if wait := c.every - time.Since(last); wait > 0 {
				if due == nil {
					due = time.After(wait)
				}
				continue
			}
		case <-due:
		case <-tick.C:
			// A CLI writes its session file around its events, not
			// before them: a checkpoint follows a file that changed.
			if due != nil || !c.sessionChanged() {
				continue
			}
		}
		due, last = nil, time.Now()
		c.save(c.ctx)
	}
}

// save pushes what changed since the last checkpoint; a failure is
// logged, and the next checkpoint tries again.
func (c *checkpointer) save(ctx context.Context) {
	var refspecs []string
	head, tree, work, err := c.commitWork(ctx)
	if err != nil {
		c.warn(ctx, "cannot make a checkpoint of a run", err)
		return
	}
	if work != "" {
		refspecs = append(refspecs, "+"+work+":"+CheckpointRef(c.a.Task, c.a.Run))
	}
	stamp, sess, err := c.commitSession(ctx)
	if err != nil {
		c.warn(ctx, "cannot save the agent's session with a run's checkpoint", err)
	}
	if sess != "" {
		refspecs = append(refspecs, "+"+sess+":"+SessionRef(c.a.Task, c.a.Run))
	}
	if len(refspecs) == 0 {
		return
	}
	args := append([]string{"push", "--no-verify", "--no-progress", "--", c.a.Remote}, refspecs...)
	if _, err := gitTransport(ctx, c.dir, args...); err != nil {
		c.warn(ctx, "cannot push a run's checkpoint to "+c.a.Remote, err)
		return
	}
	c.pushed = true
	if work != "" {
		c.head, c.tree = head, tree
	}
	if sess != "" {
		c.sessionAt = stamp
	}
}

// warn logs a checkpoint's failure, unless its ctx ended meanwhile (the
// run's end cuts a checkpoint off).
func (c *checkpointer) warn(ctx context.Context, msg string, err error) {
	if ctx.Err() == nil {
		slog.Warn(msg, "task", c.a.Task, "run", c.a.Run, "err", err)
	}
}

// commitWork commits the worktree as it is (tracked, modified and
// untracked files; not ignored ones), through a temporary index, onto
// its HEAD; work is "" when HEAD and the tree are the last checkpoint's.
func (c *checkpointer) commitWork(ctx context.Context) (head, tree, work string, err error) {
	var ti tempIndex
	if admin, ok := c.o.wt.adminDir(ctx, c.dir); ok {
		ti, err = newTempIndexAt(ctx, c.dir, filepath.Join(admin, "index"))
	} else {
		ti, err = newTempIndex(ctx, c.dir)
	}
	if err != nil {
		return "", "", "", err
	}
	defer ti.remove()
	if tree, err = gitWith(ctx, c.dir, ti.env, "write-tree"); err != nil {
		return "", "", "", err
	}
	if head, err = git(ctx, c.dir, "rev-parse", "--verify", "HEAD^{commit}"); err != nil {
		return "", "", "", err
	}
	if head == c.head && tree == c.tree {
		return head, tree, "", nil
	}
	work, err = commitTree(ctx, c.dir, tree, "-p", head, "-m", fmt.Sprintf("sudocode: checkpoint of task %s run %d", c.a.Task, c.a.Run))
	return head, tree, work, err
}

// sessionFile is where the agent's session file is now, if anywhere.
func (c *checkpointer) sessionFile() (rel string, ok bool) {
	if c.session == nil {
		return "", false
	}
	c.mu.Lock()
	id := c.sessionID
	c.mu.Unlock()
	return c.session.find(id)
}

// sessionChanged reports whether the session file differs from the one
// last saved.
func (c *checkpointer) sessionChanged() bool {
	rel, ok := c.sessionFile()
	if !ok {
		return false
	}
	st, err := c.session.stat(rel)
	return err == nil && st != c.sessionAt
}

// commitSession commits the session file, when it changed since the last
// checkpoint, as a tree of that one file under its own name.
func (c *checkpointer) commitSession(ctx context.Context) (sessionStamp, string, error) {
	rel, ok := c.sessionFile()
	if !ok {
		return sessionStamp{}, "", nil
	}
	st, err := c.session.stat(rel)
	if err != nil || st == c.sessionAt {
		return st, "", err
	}
	b, err := c.session.read(rel)
	if err != nil {
		return st, "", err
	}
	blob, err := runGit(ctx, gitx.Options{Dir: c.dir, Locks: true, Stdin: bytes.NewReader(b)}, "hash-object", "-w", "--no-filters", "--stdin")
	if err != nil {
		return st, "", err
	}
	tree, err := runGit(ctx, gitx.Options{Dir: c.dir, Locks: true, Stdin: bytes.NewReader([]byte("100644 blob " + blob + "\t" + st.name + "\n"))}, "mktree")
	if err != nil {
		return st, "", err
	}
	commit, err := commitTree(ctx, c.dir, tree, "-m", fmt.Sprintf("sudocode: %s session of task %s run %d", c.a.Agent, c.a.Task, c.a.Run))
	return st, commit, err
}

// stampOf is the stamp of a session file named name.
func stampOf(name string, fi os.FileInfo) sessionStamp {
	return sessionStamp{name: name, size: fi.Size(), mod: fi.ModTime()}
}
