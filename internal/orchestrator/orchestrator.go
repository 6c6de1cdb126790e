package orchestrator

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/orchestrator/agent"
	"github.com/sudocode/sudocode/internal/sandbox"
	"github.com/sudocode/sudocode/internal/userenv"
)

// Lookup returns the adapter for a create_task tool kind.
type Lookup func(kind string) (agent.Adapter, bool)

// Options configure an Orchestrator.
type Options struct {
	Repo string // the project: a directory inside a git repository
	// Worktrees is the root of the task worktrees (each repository gets its
	// own directory below it); empty for the project's .sudocode/agent.json
	// "worktrees", else $XDG_STATE_HOME/sudocode/worktrees. See worktreeDir.
	Worktrees string
	Actor     string        // recorded as the owner of created tasks
	Grace     time.Duration // SIGTERM → SIGKILL delay; 0 means 5s
	// FlushEvery bounds how long parsed events wait before they are stored
	// (they are also stored every 1000 events); 0 means 100ms.
	FlushEvery time.Duration
	// NoPool turns off the warm worktree (see pool): every task then gets a
	// fresh checkout, and no worktree exists before the first task.
	NoPool bool
	// Tracker is the command line that serves the tracker's MCP server on
	// stdio (this binary's "mcp"); set, the agents of a repository with a
	// tracker are given it (see runSpec).
	Tracker []string
	// Fleet, when set, runs the agents on its workers (see Fleet) instead
	// of as processes of this one. Remote is the repository they fetch
	// from and push to, as this process reaches it: it fetches a run's
	// work from there (the workers fetch the commit a run starts from by
	// its id, which a repository borrowing the checkout's objects serves
	// with nothing pushed); empty, the checkout itself. WorkerRemote is the same
	// repository as the workers reach it (an ssh URL), empty for Remote.
	Fleet        Fleet
	Remote       string
	WorkerRemote string
	// PreferWorker is the worker a task's first run is offered to first
	// (the one on this machine, which runs it in place).
	PreferWorker string
	// WorkerID is the fleet's name of the worker this orchestrator performs
	// runs for: a follow-up resumes the agent's session only on the worker
	// that ran the run before (Assignment.Prefer), where the session is.
	WorkerID string
	// InPlace makes a worker's Perform run an assignment in the task's
	// worktree it names when that is a worktree of Repo (a worker on the
	// coordinator's machine, over its checkout), instead of a clone's.
	InPlace bool
	// CheckpointEvery is how often at most a worker over its own clone
	// saves the work of a run in progress to the run's remote, for the
	// worker that takes the run if this one is lost; 0 means 5s.
	CheckpointEvery time.Duration
	// Env is the environment of the user the tasks run for: the agents'
	// and the project's commands' base environment, and the home, state
	// and cache directories where the worktrees, the trust records, the
	// commands' private homes and the agents' configuration go. A command
	// line opens the orchestrator with its own (the CLI runs commands
	// in-process, each in an environment of its own); zero is the
	// process's.
	Env userenv.Env
}

// Change is a notification that a task changed: its state (Kind
// "created", "updated") or its log (Kind "log", LastSeq the newest event).
type Change struct {
	Kind    string
	Task    Task
	LastSeq int64
}

// Change kinds.
const (
	ChangeCreated = "created"
	ChangeUpdated = "updated"
	ChangeLog     = "log"
)

// Orchestrator creates, runs, follows and ends tasks.
type Orchestrator struct {
	store  *Store
	wt     *Worktrees
	lookup Lookup
	opts   Options
	pool   *pool

	mu      sync.Mutex
	running map[string]*run
	taskMu  map[string]*sync.Mutex // serializes state changes per task

	subMu  sync.Mutex
	subs   map[int]func(Change)
	nextID int

	// tidyFirst, set by Open, makes the first Prepare clean up after
	// earlier runs (Sweep, GC), once (tidy): opening the orchestrator and
	// reading tasks leave the worktrees alone.
	tidyFirst bool
	tidy      sync.Once
	created   atomic.Int32 // tasks created, by an opened orchestrator

	// The tasks' issues (issues.go), when FollowIssues was called.
	issues   Issues
	issueMu  sync.Mutex // serializes the changes of issues with the tasks' starts
	unfollow func()
	bgMu     sync.Mutex // guards bgClosed and the start of duties
	bgClosed bool
	duties   sync.WaitGroup // the duties being done on their issues

	performMu sync.Mutex // a worker's: one run at a time sets up its worktree (Perform)
	reviewMu  sync.Mutex // one SendReview at a time: each open comment goes once
	readyHeld readyHeld  // the tasks this process's live run_ready calls hold
}

// Prepare readies the orchestrator for tasks, in the background: once,
// the clean-up after earlier runs (Sweep, then GC, whose collected
// worktrees become warm ones), then a warm worktree when the repository
// has none. A long-lived server calls it at startup, so that its first
// task finds a warm worktree.
func (o *Orchestrator) Prepare() { o.prepare(true) }

// prepare is Prepare, with or without the warm worktree.
func (o *Orchestrator) prepare(fill bool) {
	ran := false
	if o.tidyFirst {
		o.tidy.Do(func() {
			ran = o.background(func(ctx context.Context) {
				_, _ = o.Sweep(ctx)
				_, _ = o.GC(ctx) // worktrees of tasks that finished before this process
				if fill {
					o.refill()
				}
			})
		})
	}
	if !ran && fill {
		o.refill()
	}
}

// afterCreate runs once an agent started: the clean-up, and a warm
// worktree for the next task, from the second task an opened
// orchestrator starts on. A one-shot task start has no next task, and the
// checkout it would begin, cut off as it exits, would cost as much as it
// saves.
func (o *Orchestrator) afterCreate() {
	o.prepare(!o.tidyFirst || o.created.Add(1) > 1)
}

// New returns an orchestrator over store for the project in opts.Repo;
// lookup resolves tool kinds to adapters. Unless opts.NoPool, it starts
// checking out the warm worktree in the background. It does not sweep:
// the caller runs Sweep once at startup, after New.
func New(store *Store, lookup Lookup, opts Options) *Orchestrator {
	o := idle(store, lookup, opts)
	o.refill()
	return o
}

// idle returns an orchestrator that has not touched a worktree yet: no
// warm worktree is being checked out.
func idle(store *Store, lookup Lookup, opts Options) *Orchestrator {
	if opts.Grace <= 0 {
		opts.Grace = 5 * time.Second
	}
	if opts.FlushEvery <= 0 {
		opts.FlushEvery = 100 * time.Millisecond
	}
	if opts.CheckpointEvery <= 0 {
		opts.CheckpointEvery = 5 * time.Second
	}
	return &Orchestrator{
		store: store, wt: NewWorktrees(opts.Repo, opts.Worktrees, opts.Env), lookup: lookup, opts: opts,
		pool:    newPool(opts.NoPool),
		running: map[string]*run{}, taskMu: map[string]*sync.Mutex{}, subs: map[int]func(Change){},
	}
}

// Repo returns the project directory the orchestrator works on.
func (o *Orchestrator) Repo() string { return o.opts.Repo }

// Env returns the environment of the user the tasks run for
// (Options.Env), whose trust records say whether the project's commands
// may run.
func (o *Orchestrator) Env() userenv.Env { return o.opts.Env }

// Subscribe registers fn for every task change and returns a function that
// unregisters it. fn is called synchronously from the goroutine that made
// the change, so it must not block or call back into the orchestrator.
func (o *Orchestrator) Subscribe(fn func(Change)) (unsubscribe func()) {
	o.subMu.Lock()
	defer o.subMu.Unlock()
	id := o.nextID
	o.nextID++
	o.subs[id] = fn
	return func() {
		o.subMu.Lock()
		defer o.subMu.Unlock()
		delete(o.subs, id)
	}
}

func (o *Orchestrator) notify(c Change) {
	o.subMu.Lock()
	fns := make([]func(Change), 0, len(o.subs))
	for _, fn := range o.subs {
		fns = append(fns, fn)
	}
	o.subMu.Unlock()
	for _, fn := range fns {
		fn(c)
	}
}

func (o *Orchestrator) lockTask(id string) func() {
	o.mu.Lock()
	m := o.taskMu[id]
	if m == nil {
		m = new(sync.Mutex)
		o.taskMu[id] = m
	}
	o.mu.Unlock()
	m.Lock()
	return m.Unlock
}

// CreateInput is create_task's arguments.
type CreateInput struct {
	Agent        string
	Description  string
	Instructions string
	Branch       string          // empty: sudocode/<slug>-<id>; read by BranchName
	Config       json.RawMessage // a JSON object, or empty
	Actor        string          // empty: the client of ctx (AsClient), else Options.Actor
	IssueID      string          // the tracker issue the task works on, recorded with it (Start sets it)
	// Settings are the project's settings as the caller read them for
	// this task (Orchestrator.Settings), so that a start reads them once;
	// nil: Create reads them.
	Settings *Settings
	// stored, when set, is done once the task is stored and before its
	// agent starts (a task of an issue takes the issue then): a failure
	// fails the task's start.
	stored func(context.Context, Task) error
}

func decodeConfig(raw json.RawMessage) (map[string]any, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fault.New(fault.Invalid, "config must be a JSON object")
	}
	return m, nil
}

// Create makes a task of no issue: it validates in, creates the task's
// worktree and branch, stores the task and starts its agent. Invalid
// input leaves nothing behind. A task of an issue is started with Start,
// which puts the issue in progress.
func (o *Orchestrator) Create(ctx context.Context, in CreateInput) (Task, error) {
	if in.IssueID != "" {
		return Task{}, fault.New(fault.Internal, "a task of issue %s is started from its issue (Start), not created bare", in.IssueID)
	}
	return o.create(ctx, in)
}

// create is Create, of a task of an issue too.
func (o *Orchestrator) create(ctx context.Context, in CreateInput) (Task, error) {
	in.Agent = strings.TrimSpace(in.Agent)
	if in.Agent == "" {
		return Task{}, fault.New(fault.Invalid, "tool is required")
	}
	ad, ok := o.lookup(in.Agent)
	if !ok {
		return Task{}, fault.New(fault.Invalid, "unknown tool %q", in.Agent)
	}
	if err := checkNamed(ctx); err != nil {
		return Task{}, err
	}
	if err := CheckCommandGrant(ctx, in.Agent); err != nil {
		return Task{}, err
	}
	if strings.TrimSpace(in.Description) == "" {
		return Task{}, fault.New(fault.Invalid, "description is required")
	}
	if strings.TrimSpace(in.Instructions) == "" {
		in.Instructions = in.Description
	}
	cfg, err := decodeConfig(in.Config)
	if err != nil {
		return Task{}, err
	}
	if _, err := agent.PassEnv(cfg); err != nil {
		return Task{}, fault.Wrap(fault.Invalid, err, "invalid config")
	}
	// With a fleet the agent runs on a worker, which has its CLI (a run no
	// connected worker can take says so in the task's log): this machine
	// need not.
	if o.opts.Fleet == nil {
		if err := ad.Check(agent.RunSpec{Instructions: in.Instructions, Config: cfg, Path: o.opts.Env.Getenv("PATH")}); err != nil {
			return Task{}, fault.Wrap(fault.Unavailable, err, "tool "+in.Agent+" is not usable")
		}
	}
	now := time.Now().UTC()
	t := Task{
		Agent: in.Agent, Description: in.Description, Instructions: in.Instructions,
		Config: in.Config, Status: StatusPending, Actor: in.Actor, IssueID: in.IssueID, CreatedAt: now, UpdatedAt: now,
	}
	if c := ClientOf(ctx); c.Name != "" && (c.Team || t.Actor == "") {
		t.Actor = c.Name // a client of a team owns what it creates, whatever it asks
	}
	if t.Actor == "" {
		t.Actor = o.opts.Actor
	}
	branch := ""
	if strings.TrimSpace(in.Branch) != "" {
		if branch, err = BranchName(in.Branch); err != nil {
			return Task{}, err
		}
	}
	var top string
	var settings Settings
	if in.Settings != nil && in.Settings.top != "" {
		top, settings = in.Settings.top, *in.Settings
	} else {
		top, settings, err = o.wt.settings(ctx)
	}
	if err == nil {
		err = settings.mayStart()
	}
	if err != nil {
		return Task{}, err
	}
	defer o.afterCreate() // after the agent started, so that it does not slow its start
	if err := o.placeWorktree(ctx, &t, branch); err != nil {
		return Task{}, err
	}
	defer o.release(filepath.Dir(t.WorktreePath), t.ID) // once stored, the task owns its worktree
	copied, err := copyInto(top, t.WorktreePath, settings.Copy)
	if err == nil {
		err = o.store.Put(ctx, t)
	}
	if err != nil {
		_, _ = o.wt.Remove(context.WithoutCancel(ctx), t.ID, t.WorktreePath, t.Branch, false)
		return Task{}, err
	}
	ctx = context.WithoutCancel(ctx) // stored: it starts, or fails, whatever becomes of the caller (see start)
	_, _ = o.store.AppendEvents(ctx, t.ID, copied)
	o.notify(Change{Kind: ChangeCreated, Task: t})
	unlock := o.lockTask(t.ID)
	defer unlock()
	if in.stored != nil {
		if err := in.stored(ctx, t); err != nil {
			return o.failStart(ctx, t, err)
		}
	}
	return o.start(ctx, t, ad, o.runSpec(t, top, cfg, t.Instructions, ""), settings.Setup, "")
}

// start launches the agent for t (whose task lock is held), after the
// project's setup command when there is one, and returns the task as
// stored afterwards: in_progress, or failed to start. A review (follow-up
// instructions) is recorded with the run it started, and only then.
func (o *Orchestrator) start(ctx context.Context, t Task, ad agent.Adapter, spec agent.RunSpec, setup Command, review string) (Task, error) {
	// The task is stored, and must leave pending (or waiting) for a state
	// of its own whatever becomes of the caller: a request cancelled here
	// (its client gone, a run_ready call ended) once left it pending for
	// good, with its worktree made and no agent.
	ctx = context.WithoutCancel(ctx)
	if o.opts.Fleet != nil {
		return o.dispatch(ctx, t, spec, setup, review)
	}
	inv, err := ad.Invocation(spec)
	if err == nil {
		inv.Env, err = agent.Environ(ad, spec, append(o.identity(ctx), inv.Env...), o.opts.Env.Environ())
	}
	if err == nil && len(setup) > 0 {
		return o.startWithSetup(ctx, t, ad, spec, inv, setup)
	}
	var cmd *sandbox.Cmd
	var outR, errR *os.File
	if err == nil {
		cmd, outR, errR, err = o.startAgent(ctx, spec, ad, inv)
	}
	now := time.Now().UTC()
	t.UpdatedAt = now
	if err != nil {
		t.Status = StatusFailed
		t.Error = &TaskError{Type: ErrTypeStart, Details: because(err.Error())}
		t.FinishedAt = &now
		if perr := o.store.Put(ctx, t); perr != nil {
			return t, perr
		}
		o.notify(Change{Kind: ChangeUpdated, Task: t})
		return t, nil
	}
	r := &run{cmd: cmd, pgid: cmd.Process.Pid, done: make(chan struct{})}
	t.Status = StatusInProgress
	t.Error = nil
	t.MergeConflict = nil // the agent may resolve it
	t.PID = r.pgid
	t.OwnerPID = os.Getpid()
	if t.StartedAt == nil {
		t.StartedAt = &now
	}
	t.FinishedAt = nil
	if err := o.store.putStarted(ctx, t, review); err != nil {
		_ = syscall.Kill(-r.pgid, syscall.SIGKILL)
		outR.Close()
		errR.Close()
		_ = cmd.Wait()
		return t, err
	}
	o.mu.Lock()
	o.running[t.ID] = r
	o.mu.Unlock()
	o.notify(Change{Kind: ChangeUpdated, Task: t})
	go o.follow(t.ID, r, outR, errR, ad.NewParser())
	return t, nil
}

// Get returns task id.
func (o *Orchestrator) Get(ctx context.Context, id string) (Task, error) { return o.store.Get(ctx, id) }

// List returns every task, oldest first.
func (o *Orchestrator) List(ctx context.Context) ([]Task, error) { return o.store.List(ctx) }

// Logs returns task id's events after seq since (limit <= 0: all).
func (o *Orchestrator) Logs(ctx context.Context, id string, since int64, limit int) ([]StoredEvent, error) {
	if _, err := o.store.Get(ctx, id); err != nil {
		return nil, err
	}
	return o.store.Events(ctx, id, since, limit)
}

// LastSeq returns the sequence number of task id's newest event, which is
// also the number of its events (0 if none).
func (o *Orchestrator) LastSeq(ctx context.Context, id string) (int64, error) {
	if _, err := o.store.Get(ctx, id); err != nil {
		return 0, err
	}
	return o.store.LastSeq(ctx, id)
}

// unregister forgets task id's run. The code that records how a run ended
// defers it, so that the run stays registered until its end is stored:
// a Wait that starts meanwhile waits for done, and once Wait returns the
// task reads as ended (before, a Wait in between returned at once and the
// task still read in_progress).
func (o *Orchestrator) unregister(id string) {
	o.mu.Lock()
	delete(o.running, id)
	o.mu.Unlock()
}

// Wait blocks until task id has no running agent or ctx ends.
func (o *Orchestrator) Wait(ctx context.Context, id string) error {
	o.mu.Lock()
	r := o.running[id]
	o.mu.Unlock()
	if r == nil {
		return nil
	}
	select {
	case <-r.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close stops following the tasks' issues (the duties being done end
// first), terminates every agent running here (their tasks become failed
// with a server_stopped error, as after a crash: the next orchestrator to
// open notes them on their issues) and waits for them, stops reading the
// runs on the fleet's workers (which go on: ResumeFleet reads on), then
// stops the pool and removes its unclaimed worktree.
func (o *Orchestrator) Close() {
	o.stopFollowing()
	defer o.closePool()
	o.mu.Lock()
	runs := make(map[string]*run, len(o.running))
	var remote []*run
	for id, r := range o.running {
		if r.remote != nil {
			remote = append(remote, r) // its worker goes on; the next coordinator reads on
			continue
		}
		runs[id] = r
	}
	o.mu.Unlock()
	for _, r := range remote {
		r.stopFollow()
		<-r.done
	}
	var wg sync.WaitGroup
	for id, r := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.terminate(o.opts.Grace)
			unlock := o.lockTask(id)
			defer unlock()
			if t, err := o.store.Get(context.Background(), id); err == nil && t.Status == StatusCancelled {
				t.Status = StatusFailed
				t.Error = &TaskError{Type: ErrTypeServerStopped, Details: because("the server stopped while the agent was running")}
				t.UpdatedAt = time.Now().UTC()
				if o.store.Put(context.Background(), t) == nil {
					o.notify(Change{Kind: ChangeUpdated, Task: t})
				}
			}
		}()
	}
	wg.Wait()
}
