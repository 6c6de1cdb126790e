package fleetrun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/fleet"
	"github.com/sudocode/sudocode/internal/gitx"
	"github.com/sudocode/sudocode/internal/orchestrator"
	"github.com/sudocode/sudocode/internal/orchestrator/agent"
	"github.com/sudocode/sudocode/internal/userenv"
)

// Worker performs the runs the fleet offers it: for each repository, a
// clone of its own (made from the remote the first run names, fetched
// anew for every run) and an orchestrator over it, whose Perform runs the
// agent in its box and pushes the work back.
type Worker struct {
	Fleet *fleet.Fleet
	Info  fleet.WorkerInfo
	Env   userenv.Env   // the environment the agents run with (the worker's user's)
	Dir   string        // the worker's clones, worktrees and records
	Grace time.Duration // SIGTERM → SIGKILL of a stopped agent; 0: the orchestrator's default
	// Checkpoint is how often at most a run's work in progress is saved
	// to its remote (orchestrator.Options.CheckpointEvery); 0: the default.
	Checkpoint time.Duration
	// Checkouts are the repositories (by RepoKey) whose coordinator's
	// checkout is on this machine: the worker in serve's process works
	// over it, running each agent in its task's worktree, with no clone.
	Checkouts map[string]string
	// Tracker is the tracker's MCP server agents get
	// (orchestrator.Options.Tracker): in a checkout's worktrees, the
	// coordinator's tracker; in a clone's, the tracker of the task's
	// worktree, whose changes come back with the run's work.
	Tracker []string

	mu    sync.Mutex
	repos map[string]*workRepo
}

// workRepo is a repository's clone and orchestrator on a worker.
type workRepo struct {
	once  sync.Once
	o     *orchestrator.Orchestrator
	close func()
	err   error
}

// Run works until ctx ends, then stops the runs it holds (the fleet
// offers them again) and closes its orchestrators.
func (w *Worker) Run(ctx context.Context) error {
	defer w.closeAll()
	return w.Fleet.Work(ctx, w.Info, w.handle)
}

// handle performs one claimed run.
func (w *Worker) handle(ctx context.Context, c *fleet.Claim) error {
	var a orchestrator.Assignment
	if err := json.Unmarshal(c.Body, &a); err != nil {
		return fmt.Errorf("offer %s/%d: unreadable: %w", c.Task, c.Run, err)
	}
	if a.Task != c.Task || a.Run != c.Run {
		return fmt.Errorf("offer %s/%d names task %s run %d in its body", c.Task, c.Run, a.Task, a.Run)
	}
	send := func(kind string, body []byte) error { return c.Send(context.WithoutCancel(ctx), kind, body) }
	o, err := w.repo(ctx, c.Repo, a.Remote)
	if err != nil {
		end, _ := json.Marshal(orchestrator.RunEnd{Fail: &orchestrator.TaskError{Type: orchestrator.ErrTypeStart,
			Details: &orchestrator.FailureDetails{Message: "worker " + w.Info.ID + ": " + err.Error()}}})
		return errors.Join(err, send(orchestrator.MsgEnd, end))
	}
	return o.Perform(stopCause(ctx), a, c.Delivery, send)
}

// stopCause is ctx with the causes the orchestrator reads: the
// coordinator cancelled the run (its end is then reported), or this
// worker stops (its work so far is saved for the next worker); any other
// end (the lease lost) is left as it is (the run is offered again,
// unreported).
func stopCause(ctx context.Context) context.Context {
	out, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	context.AfterFunc(ctx, func() {
		switch cause := context.Cause(ctx); {
		case errors.Is(cause, fleet.ErrCancelled):
			cancel(orchestrator.ErrStopRequested)
		case errors.Is(cause, fleet.ErrWorkerStopping):
			cancel(orchestrator.ErrWorkerStopping)
		default:
			cancel(cause)
		}
	})
	return out
}

// repo returns the orchestrator over the worker's clone of repository
// key, cloning it from remote the first time.
func (w *Worker) repo(ctx context.Context, key, remote string) (*orchestrator.Orchestrator, error) {
	w.mu.Lock()
	if w.repos == nil {
		w.repos = map[string]*workRepo{}
	}
	r := w.repos[key]
	if r == nil {
		r = &workRepo{}
		w.repos[key] = r
	}
	w.mu.Unlock()
	r.once.Do(func() {
		opts := orchestrator.Options{Worktrees: filepath.Join(w.Dir, "worktrees"), Grace: w.Grace, NoPool: true, Env: w.Env, WorkerID: w.Info.ID, Tracker: w.Tracker,
			CheckpointEvery: w.Checkpoint}
		if checkout := w.Checkouts[key]; checkout != "" {
			opts.Repo, opts.InPlace = checkout, true
		} else {
			opts.Repo = filepath.Join(w.Dir, "repos", key)
			if r.err = ensureClone(ctx, opts.Repo, remote); r.err != nil {
				return
			}
		}
		r.o, r.close, r.err = orchestrator.Open(ctx, filepath.Join(w.Dir, "tasks", key), opts)
	})
	if r.err != nil {
		w.mu.Lock()
		delete(w.repos, key) // the next offer tries again
		w.mu.Unlock()
	}
	return r.o, r.err
}

// ensureClone makes dir a clone of remote unless it is one already: a
// clone in a temporary directory beside it, renamed into place, so that
// a clone cut off leaves nothing a later run would take for a clone. A
// clone of a path copies the objects (--no-local): it borrows none from
// the coordinator's repository, which git would then read for it.
func ensureClone(ctx context.Context, dir, remote string) error {
	if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), ".clone-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if _, err := gitx.Output(ctx, gitx.Options{Dir: tmp, Transport: true, Locks: true, Timeout: 30 * time.Minute}, 1<<20,
		"clone", "--quiet", "--no-checkout", "--no-local", "--", remote, filepath.Join(tmp, "c")); err != nil {
		return fault.Wrap(fault.Unavailable, err, "failed to clone "+remote)
	}
	return os.Rename(filepath.Join(tmp, "c"), dir)
}

func (w *Worker) closeAll() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, r := range w.repos {
		if r.close != nil {
			r.close()
		}
	}
	w.repos = nil
}

// DetectCLIs are the agent kinds whose CLI is on PATH in env (COMMAND,
// which needs none, included), as the fleet routes them. With needLogin,
// only those of them with a login (agent.LoggedIn): left then says, for
// each CLI installed but left out, why and what to do.
func DetectCLIs(env userenv.Env, needLogin bool) (offered, left []string) {
	home, _ := env.HomeDir()
	for _, kind := range agent.Kinds() {
		ad, err := agent.Lookup(kind)
		if kind != agent.ToolCommand && (err != nil || ad.Check(agent.RunSpec{Path: env.Getenv("PATH")}) != nil) {
			continue
		}
		if needLogin {
			if ok, why := agent.LoggedIn(kind, env.Getenv, home); !ok {
				left = append(left, AgentToken(kind)+" (installed, no login found: "+why+")")
				continue
			}
		}
		offered = append(offered, AgentToken(kind))
	}
	return offered, left
}
