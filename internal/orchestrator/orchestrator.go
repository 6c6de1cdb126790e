package orchestrator

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/orchestrator/agent"
)

// Lookup returns the adapter for a create_task tool kind.
type Lookup func(kind string) (agent.Adapter, bool)

// Options configure an Orchestrator.
type Options struct {
	Repo        string        // the project: a directory inside a git repository
	WorktreeDir string        // where task worktrees go; empty for <repo>/.git/sudocode-worktrees
	Actor       string        // recorded as the owner of created tasks
	Grace       time.Duration // SIGTERM → SIGKILL delay; 0 means 5s
	// FlushEvery bounds how long parsed events wait before they are stored
	// (they are also stored every 1000 events); 0 means 100ms.
	FlushEvery time.Duration
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

	mu      sync.Mutex
	running map[string]*run
	taskMu  map[string]*sync.Mutex // serializes state changes per task

	subMu  sync.Mutex
	subs   map[int]func(Change)
	nextID int
}

// New returns an orchestrator over store for the project in opts.Repo;
// lookup resolves tool kinds to adapters.
func New(store *Store, lookup Lookup, opts Options) *Orchestrator {
	if opts.Grace <= 0 {
		opts.Grace = 5 * time.Second
	}
	if opts.FlushEvery <= 0 {
		opts.FlushEvery = 100 * time.Millisecond
	}
	return &Orchestrator{
		store: store, wt: NewWorktrees(opts.Repo, opts.WorktreeDir), lookup: lookup, opts: opts,
		running: map[string]*run{}, taskMu: map[string]*sync.Mutex{}, subs: map[int]func(Change){},
	}
}

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
	Tool         string
	Description  string
	Instructions string
	Branch       string          // empty: sudocode/<slug>-<id>
	Config       json.RawMessage // a JSON object, or empty
	Actor        string          // empty: Options.Actor
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

// Create validates in, creates the task's worktree and branch, stores the
// task and starts its agent. Invalid input leaves nothing behind.
func (o *Orchestrator) Create(ctx context.Context, in CreateInput) (Task, error) {
	in.Tool = strings.TrimSpace(in.Tool)
	if in.Tool == "" {
		return Task{}, fault.New(fault.Invalid, "tool is required")
	}
	ad, ok := o.lookup(in.Tool)
	if !ok {
		return Task{}, fault.New(fault.Invalid, "unknown tool %q", in.Tool)
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
	now := time.Now().UTC()
	t := Task{
		ID: newID(), Tool: in.Tool, Description: in.Description, Instructions: in.Instructions,
		Branch: strings.TrimSpace(in.Branch), Config: in.Config, Status: StatusPending,
		Actor: in.Actor, CreatedAt: now, UpdatedAt: now,
	}
	if t.Actor == "" {
		t.Actor = o.opts.Actor
	}
	if t.Branch == "" {
		t.Branch = defaultBranch(in.Description, t.ID)
	}
	if err := ad.Check(agent.RunSpec{Instructions: in.Instructions, Config: cfg}); err != nil {
		return Task{}, fault.Wrap(fault.Unavailable, err, "tool "+in.Tool+" is not usable")
	}
	t.WorktreePath, t.BaseSHA, err = o.wt.Add(ctx, t.ID, t.Branch)
	if err != nil {
		return Task{}, err
	}
	if err := o.store.Put(ctx, t); err != nil {
		_, _ = o.wt.Remove(context.WithoutCancel(ctx), t.WorktreePath, t.Branch, false)
		return Task{}, err
	}
	o.notify(Change{Kind: ChangeCreated, Task: t})
	unlock := o.lockTask(t.ID)
	defer unlock()
	return o.start(ctx, t, ad, agent.RunSpec{Instructions: t.Instructions, Dir: t.WorktreePath, Config: cfg})
}

// start launches the agent for t (whose task lock is held) and returns
// the task as stored afterwards: in_progress, or failed to start.
func (o *Orchestrator) start(ctx context.Context, t Task, ad agent.Adapter, spec agent.RunSpec) (Task, error) {
	inv, err := ad.Invocation(spec)
	var cmd *exec.Cmd
	var outR, errR *os.File
	if err == nil {
		cmd, outR, errR, err = startProcess(inv, t.WorktreePath)
	}
	t.UpdatedAt = time.Now().UTC()
	if err != nil {
		t.Status = StatusFailed
		t.Error = &TaskError{Type: ErrTypeStart, Details: err.Error()}
		if perr := o.store.Put(ctx, t); perr != nil {
			return t, perr
		}
		o.notify(Change{Kind: ChangeUpdated, Task: t})
		return t, nil
	}
	r := &run{cmd: cmd, pgid: cmd.Process.Pid, done: make(chan struct{})}
	t.Status = StatusInProgress
	t.Error = nil
	t.PID = r.pgid
	t.OwnerPID = os.Getpid()
	if err := o.store.Put(ctx, t); err != nil {
		_ = syscall.Kill(-r.pgid, syscall.SIGKILL)
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

// follow runs in its own goroutine for each run: it stores the run's
// events in batches and records how the run ended.
func (o *Orchestrator) follow(id string, r *run, outR, errR *os.File, parser agent.Parser) {
	ctx := context.Background()
	defer close(r.done)
	evCh := make(chan []agent.Event, 64)
	flushed := make(chan struct{})
	go func() {
		defer close(flushed)
		var buf []agent.Event
		tick := time.NewTicker(o.opts.FlushEvery)
		defer tick.Stop()
		flush := func() {
			if len(buf) == 0 {
				return
			}
			if seq, err := o.store.AppendEvents(ctx, id, buf); err == nil {
				if t, err := o.store.Get(ctx, id); err == nil {
					o.notify(Change{Kind: ChangeLog, Task: t, LastSeq: seq})
				}
			}
			buf = buf[:0]
		}
		for {
			select {
			case evs, ok := <-evCh:
				if !ok {
					flush()
					return
				}
				buf = append(buf, evs...)
				if len(buf) >= 1000 {
					flush()
				}
			case <-tick.C:
				flush()
			}
		}
	}()
	var session string
	out := r.execute(outR, errR, parser, o.opts.Grace, func(evs []agent.Event) {
		for _, e := range evs {
			if e.SessionID != "" && e.SessionID != session {
				session = e.SessionID
			}
		}
		evCh <- evs
	})
	close(evCh)
	<-flushed
	if out.sessionID != "" {
		session = out.sessionID
	}

	unlock := o.lockTask(id)
	defer unlock()
	o.mu.Lock()
	delete(o.running, id)
	o.mu.Unlock()
	t, err := o.store.Get(ctx, id)
	if err != nil {
		return
	}
	if session != "" {
		t.SessionID = session
	}
	t.PID, t.OwnerPID = 0, 0
	t.UpdatedAt = time.Now().UTC()
	res := map[string]any{"exit_code": out.exitCode}
	if out.lastText != "" {
		res["message"] = out.lastText
	}
	if c := out.completion; c != nil {
		if c.Success != nil {
			res["success"] = *c.Success
		}
		if c.CostUSD != nil {
			res["cost_usd"] = *c.CostUSD
		}
		if c.Tokens != nil {
			res["tokens"] = c.Tokens
		}
		if c.Text != "" {
			res["message"] = c.Text
		}
	}
	if n, err := o.wt.CommitsAhead(ctx, t.BaseSHA, t.Branch); err == nil {
		res["commits"] = n
	}
	if session != "" {
		res["session_id"] = session
	}
	switch {
	case out.cancelled:
		t.Status = StatusCancelled
	case out.exitCode != 0:
		t.Status = StatusFailed
		t.Error = &TaskError{Type: ErrTypeExit, Details: map[string]any{"exit_code": out.exitCode, "stderr": out.stderr}}
	case out.completion != nil && out.completion.Success != nil && !*out.completion.Success:
		t.Status = StatusFailed
		d := map[string]any{"message": out.completion.Text}
		if out.stderr != "" {
			d["stderr"] = out.stderr
		}
		t.Error = &TaskError{Type: ErrTypeAgent, Details: d}
	case out.waiting:
		t.Status = StatusWaiting
	default:
		t.Status = StatusCompleted
	}
	if b, err := json.Marshal(res); err == nil {
		t.Result = b
	}
	if err := o.store.Put(ctx, t); err == nil {
		o.notify(Change{Kind: ChangeUpdated, Task: t})
	}
}

// UpdateInput is update_task's arguments; zero fields are left alone.
type UpdateInput struct {
	// Instructions continue the task: the agent runs again in the same
	// worktree, resuming its session when it has one. Only for a task that
	// is not running and still has its worktree.
	Instructions string
	Status       Status          // a manual status change (not while running)
	Log          string          // appended to the task log as a "log" event
	Result       json.RawMessage // replaces the task's result
}

// Update applies in to task id.
func (o *Orchestrator) Update(ctx context.Context, id string, in UpdateInput) (Task, error) {
	unlock := o.lockTask(id)
	defer unlock()
	t, err := o.store.Get(ctx, id)
	if err != nil {
		return Task{}, err
	}
	switch in.Status {
	case "", StatusWaiting, StatusCompleted, StatusFailed:
	case StatusPending, StatusInProgress, StatusCancelled:
		return Task{}, fault.New(fault.Invalid, "status %s is set by the orchestrator", in.Status).
			WithHint("give instructions to run the agent again, or end the task")
	default:
		return Task{}, fault.New(fault.Invalid, "unknown status %q", in.Status)
	}
	if in.Instructions != "" && in.Status != "" {
		return Task{}, fault.New(fault.Invalid, "give either new instructions or a status, not both")
	}
	if len(in.Result) > 0 && !json.Valid(in.Result) {
		return Task{}, fault.New(fault.Invalid, "result must be JSON")
	}
	running := o.isRunning(id)
	if (in.Instructions != "" || in.Status != "") && running {
		return Task{}, fault.New(fault.Conflict, "task %s is running", id).
			WithHint("wait until it is waiting or completed, or end it")
	}
	var ad agent.Adapter
	if in.Instructions != "" {
		if t.WorktreePath == "" {
			return Task{}, fault.New(fault.Conflict, "task %s has ended; its worktree is gone", id)
		}
		var ok bool
		if ad, ok = o.lookup(t.Tool); !ok {
			return Task{}, fault.New(fault.Invalid, "unknown tool %q", t.Tool)
		}
	}
	if in.Log != "" {
		ev := agent.Event{Time: time.Now().UTC(), Kind: agent.KindLog, Text: in.Log, Data: map[string]any{"source": "update_task"}}
		seq, err := o.store.AppendEvents(ctx, id, []agent.Event{ev})
		if err != nil {
			return Task{}, err
		}
		o.notify(Change{Kind: ChangeLog, Task: t, LastSeq: seq})
	}
	if len(in.Result) > 0 {
		t.Result = in.Result
	}
	if in.Status != "" {
		t.Status = in.Status
		if in.Status != StatusFailed {
			t.Error = nil
		}
	}
	t.UpdatedAt = time.Now().UTC()
	if in.Instructions == "" {
		if len(in.Result) > 0 || in.Status != "" {
			if err := o.store.Put(ctx, t); err != nil {
				return Task{}, err
			}
			o.notify(Change{Kind: ChangeUpdated, Task: t})
		}
		return t, nil
	}
	cfg, err := decodeConfig(t.Config)
	if err != nil {
		return Task{}, err
	}
	t.Instructions = in.Instructions
	return o.start(ctx, t, ad, agent.RunSpec{Instructions: in.Instructions, Dir: t.WorktreePath, ResumeSession: t.SessionID, Config: cfg})
}

func (o *Orchestrator) isRunning(id string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.running[id] != nil
}

// EndResult is what End did.
type EndResult struct {
	Task    Task    `json:"task"`
	Removal Removal `json:"removal"`
}

// End ends task id: a running agent's process group is terminated (the
// task becomes cancelled), then the worktree is removed and the branch
// deleted unless keepBranch. Ending an ended task is a no-op.
func (o *Orchestrator) End(ctx context.Context, id string, keepBranch bool) (EndResult, error) {
	if _, err := o.store.Get(ctx, id); err != nil {
		return EndResult{}, err
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
	t, err := o.store.Get(ctx, id)
	if err != nil {
		return EndResult{}, err
	}
	if t.Status == StatusPending || t.Status == StatusInProgress {
		t.Status = StatusCancelled
	}
	var rm Removal
	if t.WorktreePath != "" {
		if rm, err = o.wt.Remove(ctx, t.WorktreePath, t.Branch, keepBranch); err != nil {
			return EndResult{Task: t, Removal: rm}, err
		}
		t.WorktreePath = ""
	}
	t.UpdatedAt = time.Now().UTC()
	if err := o.store.Put(ctx, t); err != nil {
		return EndResult{}, err
	}
	o.notify(Change{Kind: ChangeUpdated, Task: t})
	return EndResult{Task: t, Removal: rm}, nil
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

// Close terminates every running agent (their tasks become failed with a
// server_stopped error, as after a crash) and waits for them.
func (o *Orchestrator) Close() {
	o.mu.Lock()
	runs := make(map[string]*run, len(o.running))
	for id, r := range o.running {
		runs[id] = r
	}
	o.mu.Unlock()
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
				t.Error = &TaskError{Type: ErrTypeServerStopped, Details: "the server stopped while the agent was running"}
				t.UpdatedAt = time.Now().UTC()
				if o.store.Put(context.Background(), t) == nil {
					o.notify(Change{Kind: ChangeUpdated, Task: t})
				}
			}
		}()
	}
	wg.Wait()
}
