package orchestrator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/orchestrator/agent"
)

// ErrStopRequested is the cause of a Perform context's end when the
// coordinator asked for the run to stop: Perform then reports the run
// cancelled. Any other end (the worker stopping, its lease lost) leaves
// the run to the next worker, unreported.
var ErrStopRequested = errors.New("the coordinator asked the run to stop")

// ErrWorkerStopping is the cause of a Perform's context when its worker
// stops and gives the run back to the fleet: the run's work so far is
// saved as a last checkpoint, for the worker that takes the run next.
var ErrWorkerStopping = errors.New("the worker stops: the run goes back to the fleet")

// Perform runs a, a run offered by the fleet, on this machine: this
// orchestrator is a worker's, over its own clone of the repository (or,
// with Options.InPlace, over the coordinator's checkout, where it runs
// the agent in the task's worktree and has nothing to move). It
// fetches the run's commit from a.Remote into a worktree of its own,
// runs the project's setup (a first run) and the agent in their boxes as
// a local run does, sends their events as they come, and at the end
// commits what the agent left uncommitted, pushes the work to
// RunRef(a.Task, a.Run) on a.Remote and sends the end. send delivers a
// message to the coordinator; delivery is the fleet's count of offers
// of this run (more than 1 after a worker lost it).
func (o *Orchestrator) Perform(ctx context.Context, a Assignment, delivery int, send func(kind string, body []byte) error) error {
	host, _ := os.Hostname()
	if err := sendJSON(send, MsgClaimed, claimNote{Host: host, Delivery: delivery}); err != nil {
		return err
	}
	end := o.perform(ctx, a, delivery, send)
	end.Checkpoints = end.Checkpoints || delivery > 1 // a lost worker of the run may have left some
	if ctx.Err() != nil && !errors.Is(context.Cause(ctx), ErrStopRequested) {
		return nil // the worker stops or lost the run: it is offered again, and ends there
	}
	return sendJSON(send, MsgEnd, end)
}

// perform is Perform's run, up to its end.
func (o *Orchestrator) perform(ctx context.Context, a Assignment, delivery int, send func(kind string, body []byte) error) RunEnd {
	ad, ok := o.lookup(a.Agent)
	if !ok {
		return failedEnd(ErrTypeStart, fmt.Errorf("this worker has no agent %q", a.Agent))
	}
	cfg, err := decodeConfig(a.Config)
	if err != nil {
		return failedEnd(ErrTypeStart, err)
	}
	dir, inPlace := a.Worktree, o.opts.InPlace && a.Worktree != "" && o.wt.ownWorktree(ctx, a.Worktree)
	if !inPlace {
		if dir, err = o.workTree(ctx, a); err != nil {
			return failedEnd(ErrTypeStart, err)
		}
	}
	ri, err := o.wt.place(ctx)
	if err != nil {
		return failedEnd(ErrTypeStart, err)
	}
	// A run offered again goes on from what the lost worker saved. In
	// place, the task's worktree holds it already.
	var cp checkpoint
	var resumed *resumeNote
	if delivery > 1 {
		resumed = &resumeNote{InPlace: inPlace}
		if !inPlace {
			if cp, err = o.takeCheckpoint(ctx, a, dir); err != nil {
				resumed.Problem = err.Error()
			}
			resumed.Checkpoint = cp.commit
		}
	}
	instructions, resume, note := o.sessionHere(a)
	// The tracker's MCP server, where this orchestrator has one: in place,
	// the coordinator's checkout's, as a local run has; in a clone, the
	// task's worktree's (the clone's own checkout is not the coordinator's
	// tracker), whose changes are committed and pushed with the run's work
	// and merged with the task, by the tracker's merge driver.
	top := ri.top
	if !inPlace {
		top = dir
	}
	spec := o.runSpec(Task{ID: a.Task, WorktreePath: dir}, top, cfg, instructions, resume)
	inv, err := o.invocation(ad, spec, a)
	if err != nil {
		return failedEnd(ErrTypeStart, err)
	}
	var home *sessionHome
	if !inPlace {
		home = newSessionHome(ad.Kind(), dir, inv.Env)
	}
	if cp.commit != "" || inPlace && resumed != nil {
		if spec, inv, err = o.resumeSpec(ad, spec, cp, home, a, resumed); err != nil {
			return failedEnd(ErrTypeStart, err)
		}
		if resumed.Session != "" {
			note = "" // a session is resumed after all
		}
	}
	if resumed != nil {
		_ = sendJSON(send, MsgResumed, resumed)
	}
	out := newSender(send, o.opts.FlushEvery)
	if note != "" {
		out.add([]agent.Event{remoteEvent(note)})
	}
	emit := out.add
	var saving *checkpointer
	if !inPlace {
		saving = o.startCheckpoints(a, dir, home)
		emit = func(evs []agent.Event) { out.add(evs); saving.observe(evs) }
	}
	r := &run{done: make(chan struct{})}
	stopped := context.AfterFunc(ctx, func() { go r.terminate(o.opts.Grace) })
	defer stopped()
	defer close(r.done)
	end := o.performRun(r, a, ad, spec, inv, emit)
	if saving != nil {
		saving.close() // before the end's push: no checkpoint after it
		if errors.Is(context.Cause(ctx), ErrWorkerStopping) {
			saving.final()
		}
	}
	out.close()
	end.Checkpoints = saving != nil && saving.pushedAny()
	if inPlace || !end.Ran || ctx.Err() != nil && !errors.Is(context.Cause(ctx), ErrStopRequested) {
		return end // in place, the task's worktree holds the work already
	}
	head, err := o.pushWork(context.WithoutCancel(ctx), a, dir)
	if err != nil {
		fail := failedEnd(ErrTypeExit, fmt.Errorf("the run's work could not be pushed to %s: %w", a.Remote, err))
		fail.Checkpoints = end.Checkpoints
		return fail
	}
	end.Head = head
	return end
}

// invocation is how ad runs spec for a on this machine.
func (o *Orchestrator) invocation(ad agent.Adapter, spec agent.RunSpec, a Assignment) (agent.Invocation, error) {
	inv, err := ad.Invocation(spec)
	if err == nil {
		inv.Env, err = agent.Environ(ad, spec, append(identityOnly(a.Identity), inv.Env...), o.opts.Env.Environ())
	}
	return inv, err
}

// resumeSpec is spec going on from checkpoint cp (none in place, where
// the worktree holds the work), with its invocation: the agent's session
// saved with it resumed, where its CLI finds one placed in its session
// home h, else a new session told of the work found. note gets the
// session resumed.
func (o *Orchestrator) resumeSpec(ad agent.Adapter, spec agent.RunSpec, cp checkpoint, h *sessionHome, a Assignment, note *resumeNote) (agent.RunSpec, agent.Invocation, error) {
	id, err := cp.resumeSession(h)
	if err != nil {
		slog.Warn("cannot place the agent's saved session", "task", a.Task, "run", a.Run, "err", err)
	}
	if id != "" {
		spec.ResumeSession, spec.Instructions = id, interruptedPrompt
	} else {
		spec.Instructions = resumedInstructions(spec.Instructions)
	}
	note.Session = spec.ResumeSession // a follow-up's, on the worker that has it, if not the saved one
	inv, err := o.invocation(ad, spec, a)
	return spec, inv, err
}

// performRun runs the setup (on a task's first run) and the agent as r's
// processes, their events handed to emit.
func (o *Orchestrator) performRun(r *run, a Assignment, ad agent.Adapter, spec agent.RunSpec, inv agent.Invocation, emit func([]agent.Event)) RunEnd {
	if len(a.Setup) > 0 && a.Run == 1 {
		out, err := o.runPhaseTo(r, PhaseSetup, a.Setup, spec, emit)
		switch {
		case err != nil:
			return RunEnd{Fail: &TaskError{Type: ErrTypeSetup, Details: &FailureDetails{Command: a.Setup.String(), Message: err.Error()}}}
		case out.cancelled:
			return RunEnd{}
		case out.exitCode != 0:
			d := exited(out.exitCode, out.stderr)
			d.Command = a.Setup.String()
			return RunEnd{Fail: &TaskError{Type: ErrTypeSetup, Details: d}}
		}
	}
	cmd, outR, errR, err := o.startAgent(context.Background(), spec, ad, inv)
	if err != nil {
		return failedEnd(ErrTypeStart, err)
	}
	if !r.attach(cmd) {
		abandon(cmd, outR, errR)
		return RunEnd{}
	}
	out := r.execute(outR, errR, ad.NewParser(), o.opts.Grace, emit)
	return RunEnd{Ran: true, Outcome: toWire(out)}
}

// identityOnly is env's git identity variables, and nothing else an offer
// might carry there.
func identityOnly(env []string) []string {
	var out []string
	for _, kv := range env {
		switch name, _, _ := strings.Cut(kv, "="); name {
		case "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL":
			out = append(out, kv)
		}
	}
	return out
}

func failedEnd(typ string, err error) RunEnd {
	return RunEnd{Fail: &TaskError{Type: typ, Details: because(err.Error())}}
}

// workTree fetches the run's commit a.Head from a.Remote into this clone
// and checks a's branch out at it in the task's worktree here: the one of
// its previous run when this worker ran that (its files, ignored ones
// included, kept), else a new one. The commit is fetched by its id, which
// the workers' repository serves from the checkout's objects it borrows:
// the coordinator pushes nothing before an offer.
func (o *Orchestrator) workTree(ctx context.Context, a Assignment) (string, error) {
	if !validTaskID(a.Task) {
		return "", fault.New(fault.Invalid, "invalid task id %q", a.Task)
	}
	if _, err := BranchName(a.Branch); err != nil || a.Branch != strings.TrimSpace(a.Branch) {
		return "", fault.New(fault.Invalid, "invalid branch %q", a.Branch)
	}
	if !isCommitID(a.Head) {
		return "", fault.New(fault.Invalid, "invalid commit %q", a.Head)
	}
	ri, err := o.wt.place(ctx)
	if err != nil {
		return "", err
	}
	// Runs of several tasks at once share the clone: one sets up at a time.
	o.performMu.Lock()
	defer o.performMu.Unlock()
	if _, err := gitTransport(ctx, ri.top, "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--", a.Remote, "+"+a.Head+":refs/sudocode/fetched/"+a.Task); err != nil {
		return "", fault.Wrap(fault.Unavailable, err, "failed to fetch the run's commit "+a.Head+" from "+a.Remote)
	}
	dir, err := o.wt.dirFor(ri)
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, a.Task)
	if _, err := os.Lstat(path); err == nil {
		if head, err := git(ctx, path, "rev-parse", "HEAD"); err == nil && head == a.Head {
			return path, nil
		}
		if err := o.wt.removeTree(ctx, path); err != nil {
			return "", err
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if _, err := gitWriting(context.WithoutCancel(ctx), ri.top, []string{dir}, "worktree", "add", "--quiet", "-B", a.Branch, path, a.Head); err != nil {
		return "", fault.Wrap(fault.Conflict, err, "failed to check out the task's branch")
	}
	return path, nil
}

// isCommitID reports whether s is a full object id (SHA-1 or SHA-256), as
// an offer names the commit a run starts from.
func isCommitID(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !strings.ContainsRune("0123456789abcdef", c) {
			return false
		}
	}
	return true
}

// validTaskID reports whether id is a task id (newID's alphabet), which
// a worker makes a path of.
func validTaskID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for _, c := range id {
		if !strings.ContainsRune(idAlphabet, c) {
			return false
		}
	}
	return true
}

// pushWork commits what the agent left uncommitted in the worktree at dir
// onto a's branch and pushes the branch to RunRef on a.Remote; it returns
// the commit pushed.
func (o *Orchestrator) pushWork(ctx context.Context, a Assignment, dir string) (string, error) {
	if _, err := o.wt.save(ctx, a.Task, dir, a.Branch); err != nil {
		return "", err
	}
	head, err := git(ctx, dir, "rev-parse", "refs/heads/"+a.Branch)
	if err != nil {
		return "", err
	}
	if _, err := gitTransport(ctx, dir, "push", "--no-verify", "--no-progress", "--", a.Remote, "+"+head+":"+RunRef(a.Task, a.Run)); err != nil {
		return "", err
	}
	return head, nil
}

// sendJSON sends v as a message of kind.
func sendJSON(send func(kind string, body []byte) error, kind string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return send(kind, b)
}

// sender sends a run's events in batches, at least every flushEvery, as
// storeEvents stores a local run's.
type sender struct {
	mu      sync.Mutex
	buf     []agent.Event
	send    func(kind string, body []byte) error
	stop    chan struct{}
	stopped chan struct{}
}

func newSender(send func(kind string, body []byte) error, every time.Duration) *sender {
	s := &sender{send: send, stop: make(chan struct{}), stopped: make(chan struct{})}
	go func() {
		defer close(s.stopped)
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				s.flush()
			case <-s.stop:
				s.flush()
				return
			}
		}
	}()
	return s
}

func (s *sender) add(evs []agent.Event) {
	s.mu.Lock()
	s.buf = append(s.buf, evs...)
	full := len(s.buf) >= 1000
	s.mu.Unlock()
	if full {
		s.flush()
	}
}

// flush sends what is buffered; a message the fleet refuses is dropped
// from the log (the run goes on, and its end still reaches the
// coordinator).
func (s *sender) flush() {
	s.mu.Lock()
	buf := s.buf
	s.buf = nil
	s.mu.Unlock()
	if len(buf) == 0 {
		return
	}
	if b, err := json.Marshal(buf); err == nil {
		_ = s.send(MsgEvents, b)
	}
}

func (s *sender) close() {
	close(s.stop)
	<-s.stopped
}

// sessionHere is the instructions and the session a follow-up runs with
// on this worker: the agent's session lives on the worker that ran the
// run before (a.Prefer), in its CLI's own files; elsewhere the CLI would
// not find it, so the run starts a new session, told the task's own
// instructions and that its work so far is on the branch, and note says
// so for the task's log.
func (o *Orchestrator) sessionHere(a Assignment) (instructions, resume, note string) {
	if a.Resume == "" || a.Prefer == o.opts.WorkerID {
		return a.Instructions, a.Resume, ""
	}
	var b strings.Builder
	b.WriteString("You continue a task begun by another agent session, which is not available here.")
	if a.TaskInstructions != "" {
		b.WriteString("\n\nThe task:\n\n" + a.TaskInstructions)
	}
	b.WriteString("\n\nThe work so far is committed on the current branch (see git log). Now:\n\n")
	b.WriteString(a.Instructions)
	where := "the coordinator's machine" // a run of its own, before the fleet
	if a.Prefer != "" {
		where = "worker " + a.Prefer
	}
	return b.String(), "", fmt.Sprintf("the agent's session %s is on %s: this run starts a new session, from the task's branch and instructions", a.Resume, where)
}
