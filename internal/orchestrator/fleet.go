package orchestrator

import (
	"context"
	"encoding/json"
	"strconv"
	"time"

	"github.com/sudocode/sudocode/internal/orchestrator/agent"
)

// Fleet runs tasks' agents on workers, on this machine or others: a run
// is offered to them, one of them claims it, runs it in its own checkout
// of the repository and sends its events and its end back, which the
// orchestrator stores and finishes as it does a local run's. Set in
// Options.Fleet; nil runs every agent as a process of this one.
type Fleet interface {
	// Offer queues a run for the workers; offering the same run twice
	// queues it once.
	Offer(ctx context.Context, a Assignment) error
	// Cancel asks the worker running task's run (or about to) to stop it.
	Cancel(ctx context.Context, task string, run int) error
	// Watch delivers what workers sent for task's run after the message
	// numbered after, in order, then live ones, until ctx ends.
	Watch(ctx context.Context, task string, run int, after uint64) (<-chan RunMessage, error)
	// Capable reports whether a worker connected now can run agent with
	// labels: a run nobody can take says so in its task's log.
	Capable(ctx context.Context, agent string, labels []string) (bool, error)
	// Workers are the workers connected now that may run the
	// repository's tasks.
	Workers(ctx context.Context) ([]Worker, error)
}

// Worker is a connected worker of the fleet, as agent://status shows it.
type Worker struct {
	ID        string    `json:"id"`
	Host      string    `json:"host"`
	Agents    []string  `json:"agents"`
	Labels    []string  `json:"labels"`
	Slots     int       `json:"slots"`
	Running   int       `json:"running"`
	Tasks     []string  `json:"tasks"` // the runs it is running, repo/task/run
	Heartbeat time.Time `json:"heartbeat"`
}

// FleetSetup is how a coordinator's tasks go to a fleet: the Options of
// that name, as one value for the layers that pass them through.
type FleetSetup struct {
	Fleet                              Fleet
	Remote, WorkerRemote, PreferWorker string
}

// Apply sets o's fleet options from s (nil: none).
func (s *FleetSetup) Apply(o *Options) {
	if s != nil {
		o.Fleet, o.Remote, o.WorkerRemote, o.PreferWorker = s.Fleet, s.Remote, s.WorkerRemote, s.PreferWorker
	}
}

// RunMessage is one message a worker sent about a run.
type RunMessage struct {
	Seq    uint64 // its number in the fleet's log, for Watch's after
	Kind   string // MsgClaimed, MsgEvents or MsgEnd
	Worker string
	Body   []byte
}

// The kinds of a worker's messages about a run.
const (
	MsgClaimed = "claimed" // the worker took the run: body claimNote
	MsgEvents  = "events"  // events of the run's log: body []agent.Event
	MsgEnd     = "end"     // the run ended and its work was pushed: body RunEnd
)

// Assignment is a run of a task as a worker receives it: what it runs,
// where the work comes from and goes to. The worker builds the agent's
// command line and environment itself, on its machine.
type Assignment struct {
	Task         string `json:"task"`
	Run          int    `json:"run"` // 1 for a task's first run, then one more per follow-up
	Agent        string `json:"agent"`
	Instructions string `json:"instructions"`             // this run's: the task's, or a follow-up's
	Resume       string `json:"resume_session,omitempty"` // the agent's session, on the worker Prefer names
	// TaskInstructions are the task's own, on a follow-up: a worker that
	// cannot resume the session starts a new one with them.
	TaskInstructions string          `json:"task_instructions,omitempty"`
	Config           json.RawMessage `json:"config,omitempty"`
	// Setup is the project's setup command, for a task's first run; the
	// coordinator's user trusts it.
	Setup Command `json:"setup,omitempty"`
	// Remote is the repository the worker fetches Branch from and pushes
	// the run's work to, as refs/sudocode/runs/<task>/<run> (and its
	// checkpoints while it runs: CheckpointRef).
	Remote string `json:"remote"`
	Branch string `json:"branch"`
	Head   string `json:"head"` // the commit of Branch the run starts from
	// Identity are the user's git identity variables (GIT_AUTHOR_NAME …):
	// the agent commits as the user, whichever machine it runs on.
	Identity []string `json:"identity,omitempty"`
	Labels   []string `json:"labels,omitempty"` // what the worker must have (config "labels")
	Prefer   string   `json:"prefer,omitempty"` // the worker that ran the task's previous run, which holds its session
	// Worktree is the task's worktree on the coordinator's machine: a
	// worker there, over the same checkout (Options.InPlace), runs the
	// agent in it, as a local run does, with nothing to fetch or push.
	Worktree string `json:"worktree,omitempty"`
}

// RunRef is where a worker pushes the work of task's run.
func RunRef(task string, run int) string {
	return "refs/sudocode/runs/" + task + "/" + strconv.Itoa(run)
}

// claimNote is a MsgClaimed's body.
type claimNote struct {
	Host     string `json:"host,omitempty"`
	Delivery int    `json:"delivery"` // more than 1: an earlier worker lost the run
}

// RunEnd is how a worker's run ended (a MsgEnd's body).
type RunEnd struct {
	// Ran is whether the agent ran; when not, Fail says why (the setup
	// failed, the agent could not start), or nothing when cancelled.
	Ran  bool       `json:"ran"`
	Fail *TaskError `json:"fail,omitempty"`
	// Head is the commit pushed to RunRef: the run's work, the agent's
	// uncommitted changes committed on top. Empty when nothing was pushed.
	Head    string      `json:"head,omitempty"`
	Outcome wireOutcome `json:"outcome"`
	// Checkpoints: the run's remote may hold checkpoints of it (this
	// worker pushed some, or an earlier worker of the run was lost), for
	// the coordinator to delete; none otherwise, and nothing to delete.
	Checkpoints bool `json:"checkpoints,omitempty"`
}

// wireOutcome is an outcome as a worker sends it.
type wireOutcome struct {
	ExitCode   int          `json:"exit_code"`
	Cancelled  bool         `json:"cancelled,omitempty"`
	Stderr     string       `json:"stderr,omitempty"`
	Completion *agent.Event `json:"completion,omitempty"`
	LastText   string       `json:"last_text,omitempty"`
	Reason     string       `json:"reason,omitempty"`
	Denials    []Denial     `json:"denials,omitempty"`
	SessionID  string       `json:"session_id,omitempty"`
}

func toWire(o outcome) wireOutcome {
	return wireOutcome{ExitCode: o.exitCode, Cancelled: o.cancelled, Stderr: o.stderr, Completion: o.completion,
		LastText: o.lastText, Reason: o.reason, Denials: o.denials, SessionID: o.sessionID}
}

func (w wireOutcome) outcome() outcome {
	return outcome{exitCode: w.ExitCode, cancelled: w.Cancelled, stderr: w.Stderr, completion: w.Completion,
		lastText: w.LastText, reason: w.Reason, denials: w.Denials, sessionID: w.SessionID}
}

// remoteEvent is a log event of the coordinator's own about a remote run.
func remoteEvent(text string) agent.Event {
	return agent.Event{Time: time.Now().UTC(), Kind: agent.KindLog, Text: text, Data: map[string]any{"phase": "fleet"}}
}
