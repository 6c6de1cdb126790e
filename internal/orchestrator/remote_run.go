package orchestrator

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/sudocode/sudocode/internal/gitx"
	"github.com/sudocode/sudocode/internal/orchestrator/agent"
)

// dispatch offers t's next run to the fleet instead of starting its
// agent here (start, with Options.Fleet): the task is in progress from
// now on, and followRemote stores what its worker sends and finishes the
// run as follow does a local one. A run the fleet refuses fails to start.
func (o *Orchestrator) dispatch(ctx context.Context, t Task, spec agent.RunSpec, setup Command, review string) (Task, error) {
	head, err := git(ctx, t.WorktreePath, "rev-parse", "HEAD")
	if err != nil {
		return o.failStart(ctx, t, err)
	}
	remote := cmp.Or(o.opts.WorkerRemote, o.opts.Remote)
	if remote == "" { // workers on this machine fetch from the checkout itself
		ri, err := o.wt.place(ctx)
		if err != nil {
			return o.failStart(ctx, t, err)
		}
		remote = ri.top
	}
	// The run and its assignment are recorded before anything else: a
	// coordinator killed from here on leaves a run the next one offers
	// again (ResumeFleet), not a task stuck with no run.
	n, last, err := o.store.newRemoteRun(ctx, t.ID)
	if err != nil {
		return t, err
	}
	a := Assignment{
		Task: t.ID, Run: n, Agent: t.Agent, Instructions: spec.Instructions, Resume: spec.ResumeSession,
		Config: t.Config, Setup: setup, Remote: remote, Branch: t.Branch, Head: head,
		Identity: o.identity(ctx), Labels: configLabels(spec.Config), Prefer: cmp.Or(last, o.opts.PreferWorker),
		Worktree: t.WorktreePath,
	}
	if a.TaskInstructions, err = o.taskPrompt(ctx, t, n, a.Resume); err == nil {
		err = o.store.keepOffer(ctx, a)
	}
	if err != nil {
		_ = o.store.endRemote(context.WithoutCancel(ctx), t.ID, n)
		return t, err
	}
	now := time.Now().UTC()
	t.Status, t.Error, t.MergeConflict = StatusInProgress, nil, nil
	t.PID, t.OwnerPID = 0, os.Getpid()
	t.UpdatedAt = now
	if t.StartedAt == nil {
		t.StartedAt = &now
	}
	t.FinishedAt = nil
	if err := o.store.putStarted(ctx, t, review); err != nil {
		_ = o.store.endRemote(context.WithoutCancel(ctx), t.ID, n)
		return t, err
	}
	if err := o.opts.Fleet.Offer(ctx, a); err != nil {
		_ = o.store.endRemote(context.WithoutCancel(ctx), t.ID, n)
		return o.failStart(ctx, t, fmt.Errorf("the fleet did not take the run: %w", err))
	}
	evs := []agent.Event{remoteEvent(fmt.Sprintf("run %d offered to the workers", n))}
	if ok, err := o.opts.Fleet.Capable(ctx, t.Agent, a.Labels); err == nil && !ok {
		what := t.Agent
		if len(a.Labels) > 0 {
			what += " with the labels " + strings.Join(a.Labels, ", ")
		}
		evs = append(evs, remoteEvent("no worker connected now can run "+what+": the run waits for one (see sudocode workers)"))
	}
	_, _ = o.store.AppendEvents(ctx, t.ID, evs)
	o.followRemote(t, n, 0)
	return t, nil
}

// failStart records t as failed to start, for err.
func (o *Orchestrator) failStart(ctx context.Context, t Task, err error) (Task, error) {
	now := time.Now().UTC()
	t.Status, t.UpdatedAt, t.FinishedAt = StatusFailed, now, &now
	t.Error = &TaskError{Type: ErrTypeStart, Details: because(err.Error())}
	t.PID, t.OwnerPID = 0, 0
	if perr := o.store.Put(ctx, t); perr != nil {
		return t, perr
	}
	o.notify(Change{Kind: ChangeUpdated, Task: t})
	return t, nil
}

// configLabels are the labels a task's config asks its worker to have
// ("labels": ["gpu", "os=linux"]).
func configLabels(cfg map[string]any) []string {
	list, _ := cfg["labels"].([]any)
	var out []string
	for _, v := range list {
		if s, ok := v.(string); ok && s != "" {
			out = append(out, s)
		}
	}
	return out
}

// followRemote registers t's run n as running and follows it in the
// background from the fleet's message after seen.
func (o *Orchestrator) followRemote(t Task, n int, seen uint64) {
	ctx, stop := context.WithCancel(context.Background())
	r := &run{done: make(chan struct{}), abandon: make(chan struct{}), stopFollow: stop}
	r.remote = func() { _ = o.opts.Fleet.Cancel(context.Background(), t.ID, n) }
	o.mu.Lock()
	o.running[t.ID] = r
	o.mu.Unlock()
	o.notify(Change{Kind: ChangeUpdated, Task: t})
	go o.readRemote(ctx, t.ID, n, seen, r)
}

// readRemote stores run n's events as its worker sends them and, at its
// end, brings its pushed work into the task's branch and worktree and
// finishes the run. A watch the fleet cannot open or that breaks (a NATS
// node lost, the connection down) is opened again from the last message
// read, until the run ends. It returns without finishing when ctx ends
// (Close): the worker goes on, and the next coordinator reads on from
// what was stored.
func (o *Orchestrator) readRemote(ctx context.Context, id string, n int, seen uint64, r *run) {
	defer close(r.done)
	log := o.openLog(id)
	abandoned := func() {
		log.add([]agent.Event{remoteEvent("the worker did not answer the stop; the run is recorded cancelled")})
		o.dropCheckpoints(context.Background(), id, n)
		_ = o.store.endRemote(context.Background(), id, n)
		o.endFollow(id, outcome{cancelled: true, exitCode: -1}, log)
	}
	for retry := time.Duration(0); ; retry = min(2*retry+50*time.Millisecond, 2*time.Second) {
		select {
		case <-ctx.Done():
			log.close()
			o.unregister(id)
			return
		case <-r.abandon:
			abandoned()
			return
		case <-time.After(retry):
		}
		msgs, err := o.opts.Fleet.Watch(ctx, id, n, seen)
		if err != nil {
			continue
		}
	read:
		for {
			select {
			case <-r.abandon:
				abandoned()
				return
			case m, ok := <-msgs:
				if !ok {
					break read // ctx ended, or the watch broke: opened again from seen
				}
				seen, retry = m.Seq, 0
				if o.readMessage(id, n, m, log) {
					return
				}
			}
		}
	}
}

// readMessage handles one message of run n; it reports whether the run
// ended (and was finished).
func (o *Orchestrator) readMessage(id string, n int, m RunMessage, log *runLog) bool {
	ctx := context.Background()
	switch m.Kind {
	case MsgClaimed:
		var c claimNote
		_ = json.Unmarshal(m.Body, &c)
		text := fmt.Sprintf("run %d taken by worker %s", n, m.Worker)
		if c.Delivery > 1 {
			// What the worker took up of the lost one's work, its
			// MsgResumed says.
			text += fmt.Sprintf(" (offered again: attempt %d, an earlier worker lost it)", c.Delivery)
		}
		log.add([]agent.Event{remoteEvent(text)})
	case MsgResumed:
		var r resumeNote
		_ = json.Unmarshal(m.Body, &r)
		log.add([]agent.Event{remoteEvent(resumedText(n, m.Worker, r))})
		what := "resumed" // the agent goes on from the lost run's work
		if !r.goesOn() {
			what = "restarted" // it starts over
		}
		if t, err := o.store.Get(ctx, id); err == nil {
			o.taskEvent(ctx, t, what)
		}
	case MsgEvents:
		var evs []agent.Event
		if err := json.Unmarshal(m.Body, &evs); err == nil && len(evs) > 0 {
			log.add(evs)
		}
	case MsgEnd:
		var end RunEnd
		if err := json.Unmarshal(m.Body, &end); err != nil {
			end = RunEnd{Fail: &TaskError{Type: ErrTypeStart, Details: because("the worker's report of the run's end was unreadable: " + err.Error())}}
		}
		if end.Head != "" {
			if err := o.takeRemoteWork(ctx, id, n, end.Head); err != nil {
				log.add([]agent.Event{remoteEvent("the run's work could not be brought back: " + err.Error())})
				if end.Ran && end.Fail == nil {
					end.Fail = &TaskError{Type: ErrTypeExit, Details: because("the run's work could not be brought back from the worker: " + err.Error())}
					end.Ran = false
				}
			}
		}
		if end.Head == "" && end.Checkpoints {
			o.dropCheckpoints(ctx, id, n) // else takeRemoteWork did, or there are none
		}
		_ = o.store.sawRemote(ctx, id, n, m.Seq, m.Worker)
		_ = o.store.endRemote(ctx, id, n)
		if !end.Ran {
			log.close()
			o.recordEnd(id, end.Fail) // readRemote marks the run done
			return true
		}
		o.endFollow(id, end.Outcome.outcome(), log)
		return true
	}
	_ = o.store.sawRemote(ctx, id, n, m.Seq, m.Worker)
	return false
}

// takeRemoteWork fetches the commit a worker pushed for task id's run n
// and moves the task's branch (checked out in its worktree) to it, as a
// fast-forward: the branch does not move here while a worker runs it.
func (o *Orchestrator) takeRemoteWork(ctx context.Context, id string, n int, head string) error {
	t, err := o.store.Get(ctx, id)
	if err != nil {
		return err
	}
	if t.WorktreePath == "" {
		return fmt.Errorf("task %s has no worktree", id)
	}
	ref := RunRef(id, n)
	if o.opts.Remote != "" {
		// Not while a worktree is being added (see Worktrees.addMu).
		o.wt.addMu.RLock()
		_, err := gitTransport(ctx, t.WorktreePath, "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--", o.opts.Remote, "+"+ref+":"+ref)
		o.wt.addMu.RUnlock()
		if err != nil {
			return err
		}
	}
	if _, err = git(ctx, t.WorktreePath, "merge", "--ff-only", "--quiet", head); err != nil {
		return err
	}
	// The branch holds the work now: the run's ref goes, here and there,
	// and its checkpoints with it.
	o.dropRefs(ctx, t.WorktreePath, ref, CheckpointRef(id, n), SessionRef(id, n))
	return nil
}

// dropCheckpoints deletes the checkpoints of task id's run n, which has
// ended: the run's remote (the checkout itself, for workers on this
// machine) keeps no work a later worker could take up.
func (o *Orchestrator) dropCheckpoints(ctx context.Context, id string, n int) {
	if t, err := o.store.Get(ctx, id); err == nil && t.WorktreePath != "" {
		o.dropRefs(ctx, t.WorktreePath, CheckpointRef(id, n), SessionRef(id, n))
	}
}

// dropRefs deletes refs from the workers' repository and this one, in a
// process each; refs that are not there are no error.
func (o *Orchestrator) dropRefs(ctx context.Context, dir string, refs ...string) {
	var del strings.Builder
	args := []string{"push", "--no-verify", "--no-progress", "--", o.opts.Remote}
	for _, r := range refs {
		del.WriteString("delete " + r + "\n")
		args = append(args, ":"+r)
	}
	if o.opts.Remote != "" {
		_, _ = gitTransport(ctx, dir, args...)
	}
	_, _ = runGit(ctx, gitx.Options{Dir: dir, Locks: true, Stdin: strings.NewReader(del.String())}, "update-ref", "--stdin")
}

// ResumeFleet follows again the runs this orchestrator's store has
// offered to the fleet and not seen end: those of a coordinator that
// stopped (or was killed) while workers ran them. A server calls it once
// at startup, with Options.Fleet set.
func (o *Orchestrator) ResumeFleet(ctx context.Context) error {
	if o.opts.Fleet == nil {
		return nil
	}
	runs, err := o.store.openRemoteRuns(ctx)
	if err != nil {
		return err
	}
	for _, rr := range runs {
		t, err := o.store.Get(ctx, rr.task)
		if err != nil || t.Status != StatusInProgress && t.Status != StatusPending || o.isRunning(t.ID) {
			if err == nil && t.Status != StatusInProgress && t.Status != StatusPending {
				o.dropCheckpoints(ctx, rr.task, rr.run)
				_ = o.store.endRemote(ctx, rr.task, rr.run)
			}
			continue
		}
		if rr.seen == 0 {
			// No worker has said a word of it: the last coordinator may
			// have died before its offer was made. Offered again: the
			// fleet drops an offer it has had, and a run that ended.
			if err := o.offerAgain(ctx, t, rr.run); err != nil {
				slog.Warn("cannot offer a run again", "task", t.ID, "run", rr.run, "err", err)
			}
		}
		now := time.Now().UTC()
		t.Status, t.OwnerPID, t.UpdatedAt = StatusInProgress, os.Getpid(), now
		if t.StartedAt == nil {
			t.StartedAt = &now
		}
		if err := o.store.Put(ctx, t); err != nil {
			return err
		}
		o.followRemote(t, rr.run, rr.seen)
	}
	return nil
}

// offerAgain makes task t's run n's offer again, from its recorded
// assignment.
func (o *Orchestrator) offerAgain(ctx context.Context, t Task, n int) error {
	a, ok, err := o.store.offerOf(ctx, t.ID, n)
	if err != nil || !ok {
		return err
	}
	return o.opts.Fleet.Offer(ctx, a)
}

// taskPrompt keeps the instructions of task t's first run offered, and
// returns them for a later run n (a worker that cannot resume the agent's
// session starts a new one with them); for a follow-up of a task whose
// first run was not offered (it ran before the fleet), its description.
func (o *Orchestrator) taskPrompt(ctx context.Context, t Task, n int, resume string) (string, error) {
	if n == 1 {
		if err := o.store.keepPrompt(ctx, t.ID, t.Instructions); err != nil || resume == "" {
			return "", err
		}
		return t.Description, nil
	}
	p, ok, err := o.store.prompt(ctx, t.ID)
	if err != nil || ok {
		return p, err
	}
	return t.Description, nil
}
