// Package orchestrator runs coding agents as tasks: each task gets its own
// git worktree on its own branch, a headless agent process (through an
// agent.Adapter) whose event stream becomes the task's stored log, and a
// status that survives a restart of the server.
//
// A run that succeeds leaves the task waiting when the agent has a session
// to resume (Update with instructions resumes it), completed when it has
// none (COMMAND); only End completes a waiting task. At the end of every
// run the changes are read from git (commits on the branch since BaseSHA
// plus uncommitted and untracked files), logged as one file_change event
// and kept in the result, whose outcome is succeeded, noop (no commit, no
// diff), failed or cancelled. One worktree is kept checked out ahead (see
// pool) so that a task starts in milliseconds on a large repository.
package orchestrator

import (
	"crypto/rand"
	"encoding/json"
	"strings"
	"time"
)

// Status is a task's lifecycle state:
// pending → in_progress → waiting | completed | failed | cancelled.
type Status string

const (
	StatusPending    Status = "pending"     // created, agent not started yet
	StatusInProgress Status = "in_progress" // an agent process is running
	StatusWaiting    Status = "waiting"     // the agent's run succeeded and its session can be resumed with new instructions
	StatusCompleted  Status = "completed"
	StatusFailed     Status = "failed"
	StatusCancelled  Status = "cancelled" // ended by end_task while running
)

// Valid reports whether s is one of the known statuses.
func (s Status) Valid() bool {
	switch s {
	case StatusPending, StatusInProgress, StatusWaiting, StatusCompleted, StatusFailed, StatusCancelled:
		return true
	}
	return false
}

// Error types recorded on tasks.
const (
	ErrTypeServerStopped = "server_stopped" // the server exited while the agent ran
	ErrTypeStart         = "start_failed"   // the agent process could not be started
	ErrTypeExit          = "agent_exit"     // the agent exited non-zero
	ErrTypeAgent         = "agent_error"    // the agent reported failure
)

// Task is one delegated unit of work.
type Task struct {
	ID           string          `json:"id"`
	Agent        string          `json:"tool"`
	Description  string          `json:"description"`
	Instructions string          `json:"instructions"`
	Branch       string          `json:"branch"`
	WorktreePath string          `json:"worktree_path,omitempty"` // empty once the worktree was removed
	BaseSHA      string          `json:"base_sha"`                // the commit the branch started from
	Config       json.RawMessage `json:"config,omitempty"`
	Status       Status          `json:"status"`
	Result       json.RawMessage `json:"result,omitempty"`
	Error        *TaskError      `json:"error,omitempty"`
	SessionID    string          `json:"session_id,omitempty"` // the agent's session, for resume
	PID          int             `json:"pid,omitempty"`        // the agent's process (group) while running
	OwnerPID     int             `json:"owner_pid,omitempty"`  // the server process running the agent
	Actor        string          `json:"actor,omitempty"`
	IssueID      string          `json:"issue_id,omitempty"` // the tracker issue it works on; its Instructions are the prompt assembled from it
	CreatedAt    time.Time       `json:"created_at"`
	UpdatedAt    time.Time       `json:"updated_at"`
	StartedAt    *time.Time      `json:"started_at,omitempty"`    // the first agent start
	FinishedAt   *time.Time      `json:"finished_at,omitempty"`   // the last run's end, or end_task; nil while running
	MergedCommit string          `json:"merged_commit,omitempty"` // the commit its merge made on the base
	// MergeConflict are the files the last merge of the task was refused
	// for, as conflicting with the base; cleared when its agent runs again.
	MergeConflict []string `json:"merge_conflict,omitempty"`
}

// States a task is shown in beyond its Status (see State).
const (
	StateMerged     = "merged"     // its branch was merged
	StateConflicted = "conflicted" // its last merge was refused for a conflict
	StateEnded      = "ended"      // completed by end_task without a merge
)

// State is how a task reads in lists: its Status, except that a merged
// task reads merged, one whose merge was refused for a conflict reads
// conflicted, and one completed by end_task without a merge reads ended,
// where all three would otherwise read completed.
func (t Task) State() string {
	switch {
	case t.MergedCommit != "":
		return StateMerged
	case len(t.MergeConflict) > 0 && (t.Status == StatusWaiting || t.Status == StatusCompleted):
		return StateConflicted
	case t.Status == StatusCompleted && t.WorktreePath == "":
		return StateEnded
	}
	return string(t.Status)
}

// StateText is a task state (State) in the words a person reads, on
// every surface alike: a task whose agent finished, with its worktree
// still there, waits for review (a merge, a follow-up or an end) whether
// its CLI keeps a session (waiting) or not (completed). A state without
// words reads as itself.
func StateText(state string) string {
	if text, ok := stateWords[state]; ok {
		return text
	}
	return state
}

var stateWords = map[string]string{
	string(StatusPending):    "starting",
	string(StatusInProgress): "running",
	string(StatusWaiting):    "waiting for review",
	string(StatusCompleted):  "waiting for review",
	string(StatusFailed):     "failed",
	string(StatusCancelled):  "stopped",
	StateMerged:              "merged",
	StateConflicted:          "conflicted",
	StateEnded:               "ended",
}

// Running reports whether the task's status says an agent is running.
func (t Task) Running() bool { return t.Status == StatusInProgress }

// Ended reports whether end_task already ended t: its worktree is gone and
// its status is final.
func (t Task) Ended() bool {
	switch t.Status {
	case StatusCompleted, StatusFailed, StatusCancelled:
		return t.WorktreePath == ""
	}
	return false
}

const idAlphabet = "0123456789abcdefghijklmnopqrstuvwxyz"

// newID returns a short random id (8 base-36 characters, ~41 bits).
func newID() string {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	for i := range b {
		b[i] = idAlphabet[int(b[i])%len(idAlphabet)]
	}
	return string(b[:])
}

// slug turns s into a short lower-case, dash-separated branch component.
func slug(s string, max int) string {
	var sb strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			if dash && sb.Len() > 0 {
				sb.WriteByte('-')
			}
			dash = false
			sb.WriteRune(r)
			if sb.Len() >= max {
				break
			}
			continue
		}
		dash = true
	}
	return strings.Trim(sb.String(), "-")
}

// defaultBranch names a task's branch: sudocode/<slug-of-description>-<id>.
func defaultBranch(description, id string) string {
	if s := slug(description, 40); s != "" {
		return "sudocode/" + s + "-" + id
	}
	return "sudocode/task-" + id
}
