package orchestrator

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/orchestrator/agent"
)

// startWithSetup records t as in progress and runs the project's setup
// command, then the agent (inv), in the background: a setup may take
// minutes (npm ci), and create_task answers at once. End and Close stop
// whichever of the two runs.
func (o *Orchestrator) startWithSetup(ctx context.Context, t Task, ad agent.Adapter, spec agent.RunSpec, inv agent.Invocation, setup Command) (Task, error) {
	now := time.Now().UTC()
	r := &run{done: make(chan struct{})}
	t.Status, t.Error = StatusInProgress, nil
	t.OwnerPID = os.Getpid()
	t.UpdatedAt = now
	if t.StartedAt == nil {
		t.StartedAt = &now
	}
	t.FinishedAt = nil
	if err := o.store.Put(ctx, t); err != nil {
		return t, err
	}
	o.mu.Lock()
	o.running[t.ID] = r
	o.mu.Unlock()
	o.notify(Change{Kind: ChangeUpdated, Task: t})
	go o.setupThenFollow(t.ID, r, ad, spec, inv, setup)
	return t, nil
}

// setupThenFollow runs the setup command; when it succeeds, the agent,
// followed as usual. Otherwise the task ends failed (setup_failed, or
// start_failed) or cancelled, without starting the agent.
func (o *Orchestrator) setupThenFollow(id string, r *run, ad agent.Adapter, spec agent.RunSpec, inv agent.Invocation, setup Command) {
	out, err := o.runPhase(id, r, PhaseSetup, setup, spec)
	var fail *TaskError
	switch {
	case err != nil:
		fail = &TaskError{Type: ErrTypeSetup, Details: &FailureDetails{Command: setup.String(), Message: err.Error()}}
	case out.cancelled:
	case out.exitCode != 0:
		d := exited(out.exitCode, out.stderr)
		d.Command = setup.String()
		fail = &TaskError{Type: ErrTypeSetup, Details: d}
	default:
		cmd, outR, errR, err := o.startAgent(context.Background(), spec, ad, inv)
		if err != nil {
			fail = &TaskError{Type: ErrTypeStart, Details: because(err.Error())}
			break
		}
		if !r.attach(cmd) {
			abandon(cmd, outR, errR)
			break
		}
		o.setPID(id, cmd.Process.Pid)
		o.follow(id, r, outR, errR, ad.NewParser())
		return
	}
	o.endRun(id, r, fail)
}

// setPID records the agent's process group on task id.
func (o *Orchestrator) setPID(id string, pid int) {
	unlock := o.lockTask(id)
	defer unlock()
	if t, err := o.store.Get(context.Background(), id); err == nil {
		t.PID = pid
		if o.store.Put(context.Background(), t) == nil {
			o.notify(Change{Kind: ChangeUpdated, Task: t})
		}
	}
}

// endRun records a run that ended before its agent ran: failed with fail,
// or cancelled when fail is nil. Then the run is done.
func (o *Orchestrator) endRun(id string, r *run, fail *TaskError) {
	defer close(r.done)
	o.recordEnd(id, fail)
}

// recordEnd is endRun but for the end of r, which its caller marks.
func (o *Orchestrator) recordEnd(id string, fail *TaskError) {
	unlock := o.lockTask(id)
	defer unlock()
	defer o.unregister(id)
	t, err := o.store.Get(context.Background(), id)
	if err != nil {
		return
	}
	now := time.Now().UTC()
	t.PID, t.OwnerPID = 0, 0
	t.UpdatedAt, t.FinishedAt = now, &now
	t.Status, t.Error = StatusCancelled, nil
	if fail != nil {
		t.Status, t.Error = StatusFailed, fail
	}
	if o.store.Put(context.Background(), t) == nil {
		o.notify(Change{Kind: ChangeUpdated, Task: t})
	}
}

// cleanup runs the project's cleanup command in t's worktree before it is
// removed, its output logged on t; a failure is logged, and does not keep
// the worktree. The caller holds t's lock, and no run is going on.
func (o *Orchestrator) cleanup(ctx context.Context, t Task) {
	if t.WorktreePath == "" {
		return
	}
	if _, err := os.Stat(t.WorktreePath); err != nil {
		return
	}
	_, s, err := o.wt.settings(ctx)
	if err != nil || len(s.Cleanup) == 0 {
		return
	}
	if err := s.mayRun("the end of a task"); err != nil {
		// Ending a task must not depend on the repository's commands: the
		// cleanup is skipped, and the log says why and what to do.
		text := err.Error() + "; " + fault.HintOf(err)
		e := agent.Event{Time: time.Now().UTC(), Kind: agent.KindError, Text: text, Data: map[string]any{"phase": PhaseCleanup, "fatal": false}}
		_, _ = o.store.AppendEvents(ctx, t.ID, []agent.Event{e})
		return
	}
	cfg, _ := decodeConfig(t.Config)
	r := &run{done: make(chan struct{})}
	timer := time.AfterFunc(cleanupTimeout, func() { r.terminate(o.opts.Grace) })
	out, err := o.runPhase(t.ID, r, PhaseCleanup, s.Cleanup, agent.RunSpec{Dir: t.WorktreePath, Config: cfg})
	timer.Stop()
	close(r.done)
	msg := ""
	switch {
	case err != nil:
		msg = "cleanup failed to start: " + err.Error()
	case out.cancelled:
		msg = fmt.Sprintf("cleanup stopped after %s", cleanupTimeout)
	case out.exitCode != 0:
		msg = fmt.Sprintf("cleanup failed with exit code %d", out.exitCode)
	}
	if msg != "" {
		e := agent.Event{Time: time.Now().UTC(), Kind: agent.KindError, Text: msg, Data: map[string]any{"phase": PhaseCleanup, "fatal": false}}
		_, _ = o.store.AppendEvents(ctx, t.ID, []agent.Event{e})
	}
}
