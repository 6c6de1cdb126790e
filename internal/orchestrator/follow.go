package orchestrator

import (
	"cmp"
	"context"
	"encoding/json"
	"os"
	"strings"
	"time"

	"github.com/sudocode/sudocode/internal/orchestrator/agent"
	"github.com/sudocode/sudocode/internal/plural"
)

// Outcomes of a run, in its result's "outcome".
const (
	OutcomeSucceeded = "succeeded"
	OutcomeNoop      = "noop" // succeeded, but with no new commit and an empty diff
	OutcomeFailed    = "failed"
	OutcomeCancelled = "cancelled"
)

// runResult is the result a run leaves on its task.
type runResult struct {
	Outcome  string        `json:"outcome"`
	ExitCode int           `json:"exit_code"`
	Success  *bool         `json:"success,omitempty"`  // the agent's own verdict, if it gave one
	Message  string        `json:"message,omitempty"`  // the final answer
	CostUSD  *float64      `json:"cost_usd,omitempty"` // this run's
	Tokens   *agent.Tokens `json:"tokens,omitempty"`   // this run's
	// TaskUsage adds up every run of the task.
	TaskUsage Usage `json:"task_usage"`
	// Session is what the CLI last reported for its whole session.
	Session           *sessionFigures `json:"session_figures,omitempty"`
	PermissionDenials []Denial        `json:"permission_denials,omitempty"`
	Commits           int             `json:"commits"`
	FilesChanged      []string        `json:"files_changed"`
	DiffStat          *DiffStat       `json:"diff_stat,omitempty"`
	SessionID         string          `json:"session_id,omitempty"`
}

// follow runs in its own goroutine for each local run: it stores the
// run's events in batches while the agent runs, then finishes the run.
func (o *Orchestrator) follow(id string, r *run, outR, errR *os.File, parser agent.Parser) {
	defer close(r.done)
	log := o.openLog(id)
	out := r.execute(outR, errR, parser, o.opts.Grace, log.add)
	o.endFollow(id, out, log)
}

// runLog stores one run's events in batches (storeEvents) as they come,
// and remembers the last session id they named.
type runLog struct {
	ch      chan []agent.Event
	flushed chan struct{}
	session string
}

// openLog starts storing events of task id; close ends it.
func (o *Orchestrator) openLog(id string) *runLog {
	l := &runLog{ch: make(chan []agent.Event, 64), flushed: make(chan struct{})}
	go o.storeEvents(context.Background(), id, l.ch, l.flushed)
	return l
}

// add queues evs for storing. Calls are serialized by the run's reader.
func (l *runLog) add(evs []agent.Event) {
	for _, e := range evs {
		if e.SessionID != "" {
			l.session = e.SessionID
		}
	}
	l.ch <- evs
}

// close stores what is queued and returns once it is stored.
func (l *runLog) close() {
	close(l.ch)
	<-l.flushed
}

// endFollow reads the run's file changes from git, logs them, closes log and
// records how the run ended (out), wherever its agent ran.
func (o *Orchestrator) endFollow(id string, out outcome, log *runLog) {
	ctx := context.Background()
	session := log.session
	if out.sessionID != "" {
		session = out.sessionID
	}
	// Tool events miss edits made through shell commands: git has them
	// all. This runs before done closes, so End cannot remove the
	// worktree meanwhile.
	var ch *changes
	if t, err := o.store.Get(ctx, id); err == nil {
		refreshIndex(ctx, t.WorktreePath)
		if c, ok, err := o.wt.taskChanges(ctx, t); err == nil && ok {
			ch = &c
			log.add([]agent.Event{changeEvent(c, time.Now().UTC())})
		}
	}
	log.close()

	unlock := o.lockTask(id)
	defer unlock()
	defer o.unregister(id)
	t, err := o.store.Get(ctx, id)
	if err != nil {
		return
	}
	if session != "" {
		t.SessionID = session
	}
	now := time.Now().UTC()
	t.PID, t.OwnerPID = 0, 0
	t.UpdatedAt, t.FinishedAt = now, &now
	var prev runResult // the previous run's, for the usage of the task and session
	_ = json.Unmarshal(t.Result, &prev)
	res := runResult{ExitCode: out.exitCode, Message: out.lastText, SessionID: t.SessionID, FilesChanged: []string{},
		PermissionDenials: out.denials}
	var run Usage
	run, res.TaskUsage, res.Session = runUsage(out.completion, t.SessionID, prev)
	res.CostUSD, res.Tokens = run.CostUSD, run.Tokens
	if c := out.completion; c != nil {
		res.Success = c.Success
		if c.Text != "" {
			res.Message = c.Text
		}
	}
	if ch != nil {
		res.Commits, res.FilesChanged, res.DiffStat = ch.Commits, ch.Files, &ch.Stat
	}
	switch {
	case out.cancelled:
		t.Status, res.Outcome = StatusCancelled, OutcomeCancelled
	case out.exitCode != 0:
		t.Status, res.Outcome = StatusFailed, OutcomeFailed
		t.Error = &TaskError{Type: ErrTypeExit, Details: failureDetails(out, res.Message)}
	case res.Success != nil && !*res.Success:
		t.Status, res.Outcome = StatusFailed, OutcomeFailed
		t.Error = &TaskError{Type: ErrTypeAgent, Details: failureDetails(out, res.Message)}
	default:
		// A resumable session waits for more instructions; only end_task
		// completes it. Without one (COMMAND) there is nothing to resume.
		t.Status = StatusCompleted
		if t.SessionID != "" {
			t.Status = StatusWaiting
		}
		res.Outcome = OutcomeSucceeded
		if ch != nil && ch.noop() {
			res.Outcome = OutcomeNoop
		}
	}
	if b, err := json.Marshal(res); err == nil {
		t.Result = b
	}
	if err := o.store.Put(ctx, t); err == nil {
		o.notify(Change{Kind: ChangeUpdated, Task: t})
	}
}

// failureDetails are a failed run's error details: the reason the CLI
// reported (on stdout, in its error or terminal event: Claude's error
// result, Codex's turn.failed, OpenCode's error), its exit code and the
// tail of its stderr.
func failureDetails(out outcome, message string) *FailureDetails {
	d := exited(out.exitCode, out.stderr)
	d.Message, d.PermissionDenials = cmp.Or(out.reason, message), out.denials
	return d
}

// changeEvent is the file_change event of a run's git changes.
func changeEvent(c changes, now time.Time) agent.Event {
	text := "no changes"
	if c.Stat.Files > 0 || c.Commits > 0 {
		text = strings.Join([]string{
			plural.Count(c.Stat.Files, "file", "files") + " changed",
			plural.Count(c.Stat.Insertions, "insertion(+)", "insertions(+)"),
			plural.Count(c.Stat.Deletions, "deletion(-)", "deletions(-)"),
			plural.Count(c.Commits, "commit", "commits"),
		}, ", ")
	}
	return agent.Event{Time: now, Kind: agent.KindFileChange, Text: text, Files: c.Files, Data: map[string]any{
		"source": "git", "commits": c.Commits, "insertions": c.Stat.Insertions, "deletions": c.Stat.Deletions,
	}}
}

// storeEvents stores the batches received on evCh, at least every
// FlushEvery and every 1000 events, notifying subscribers of each flush;
// it closes flushed once evCh is closed and drained.
func (o *Orchestrator) storeEvents(ctx context.Context, id string, evCh <-chan []agent.Event, flushed chan<- struct{}) {
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
}
