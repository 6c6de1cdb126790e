package mcpcoding

import (
	"context"
	"maps"
	"os"
	"syscall"
	"time"

	"github.com/sudocode/sudocode/internal/workspace"
	"github.com/sudocode/sudocode/internal/workspace/policy"
	"github.com/sudocode/sudocode/internal/workspace/procs"
)

type execCommandIn struct {
	Cmd            string            `json:"cmd" jsonschema:"Shell command, run with /bin/sh -c" schema:"minLength=1"`
	Workdir        string            `json:"workdir,omitempty" jsonschema:"Workspace-relative working directory" schema:"default=."`
	TimeoutMS      int               `json:"timeout_ms,omitempty" jsonschema:"Kill the command after this many milliseconds" schema:"default=30000,min=1,max=600000"`
	YieldTimeMS    int               `json:"yield_time_ms,omitempty" jsonschema:"Wait this long for the command to finish before returning a session" schema:"default=1000,min=0,max=30000"`
	MaxOutputBytes int               `json:"max_output_bytes,omitempty" jsonschema:"Most bytes of each stream to return (the tail)" schema:"default=65536,min=1,max=1048576"`
	Stdin          string            `json:"stdin,omitempty" jsonschema:"Text written to standard input, which is then closed (unless tty)" schema:"default="`
	TTY            bool              `json:"tty,omitempty" jsonschema:"Run on a pseudo-terminal and keep stdin open for write_stdin" schema:"default=false"`
	Env            map[string]string `json:"env,omitempty" jsonschema:"Extra environment variables" schema:"default="`
}

// execCommandOut is exec_command's result (docs/coding-tools.md#exec_command):
// a session snapshot, the call's wall time, and on a policy refusal the
// permission request.
type execCommandOut struct {
	snapshotOut
	ElapsedMS         int64           `json:"elapsed_ms" jsonschema:"Wall time of this call"`
	PermissionRequest *refusalRequest `json:"permission_request,omitempty" jsonschema:"What a policy refusal asks for"`
}

// statusOnly is where a failed call leaves the command: rejected before
// launch, or refused by the policy.
type statusOnly struct {
	Status            string          `json:"status"`
	PermissionRequest *refusalRequest `json:"permission_request,omitempty"`
}

func (s *Server) execCommand() tool {
	return define("exec_command", "Run a shell command in the workspace under the safety policy; returns its output, or a session id while it runs.",
		hints("Execute command", false, true, false, true),
		func(ctx context.Context, in execCommandIn) (*execCommandOut, error) {
			rejected := func(err error) error { return failWith(statusOnly{Status: "rejected"}, err) }
			// Step 0: the working directory
			// (docs/coding-tools.md#existing-paths), even in dangerous mode.
			if in.Workdir == "" {
				in.Workdir = "."
			}
			dir, err := s.root.Existing(in.Workdir)
			if err != nil {
				return nil, rejected(err)
			}
			if fi, err := os.Stat(dir.Abs); err != nil || !fi.IsDir() {
				return nil, rejected(workspace.Errorf(workspace.CodeNotADirectory, map[string]any{"path": dir.Rel},
					"workdir %s is not a directory", dir.Rel))
			}
			// Steps 1–7: the policy, relative paths taken from workdir.
			if r := policy.CheckWith(s.root, dir.Rel, in.Cmd, in.Env, policy.Mode{Dangerous: s.opts.Dangerous, Network: s.opts.AllowNetwork}); r != nil {
				return nil, permissionRequired(r)
			}
			// Step 8: the sandbox and the launch.
			snap, err := s.procs.Start(ctx, procs.Request{Cmd: in.Cmd, Dir: dir.Abs, Env: in.Env, Stdin: in.Stdin, TTY: in.TTY,
				Timeout: ms(in.TimeoutMS), Yield: ms(in.YieldTimeMS), MaxOutputBytes: in.MaxOutputBytes})
			if err != nil {
				return nil, rejected(err)
			}
			return &execCommandOut{snapshotOut: snapshotOf(snap), ElapsedMS: snap.Elapsed.Milliseconds()}, nil
		})
}

// permissionRequired is a policy refusal
// (docs/coding-tools.md#order-of-checks): the permission request both at the
// top level and inside the error.
func permissionRequired(r *policy.Refusal) error {
	details := maps.Clone(r.Details)
	if details == nil {
		details = map[string]any{}
	}
	details["permission"] = r.Permission
	request := &refusalRequest{ToolName: "exec_command", Permission: r.Permission, Status: "required", Retryable: r.Grantable()}
	return &failure{err: workspace.Errorf(workspace.CodePermissionRequired, details, "%s", r.Message),
		fields: statusOnly{Status: "permission_required", PermissionRequest: request}, request: request}
}

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

// snapshotOut is a session snapshot (docs/coding-tools.md#exec_command,
// #write_stdin, #kill_session): exit_code and signal only once the command has
// ended, session_id while it is a session.
type snapshotOut struct {
	Status             string   `json:"status" jsonschema:"exited, running or timeout; kill_session: terminated or exited; on failure rejected or permission_required"`
	SessionID          string   `json:"session_id,omitempty" jsonschema:"The session to use with write_stdin and kill_session"`
	ExitCode           *int     `json:"exit_code,omitempty" jsonschema:"Exit status; minus the signal number when a signal killed it"`
	Signal             string   `json:"signal,omitempty" jsonschema:"The signal that killed it, e.g. SIGTERM"`
	TimedOut           bool     `json:"timed_out"`
	Stdout             string   `json:"stdout" jsonschema:"Output since the previous read, tail-cut"`
	Stderr             string   `json:"stderr"`
	StdoutTruncated    bool     `json:"stdout_truncated"`
	StderrTruncated    bool     `json:"stderr_truncated"`
	StdoutTruncatedBy  string   `json:"stdout_truncated_by,omitempty" jsonschema:"lines or bytes"`
	StderrTruncatedBy  string   `json:"stderr_truncated_by,omitempty" jsonschema:"lines or bytes"`
	StdoutDroppedBytes int64    `json:"stdout_dropped_bytes" jsonschema:"Bytes the session buffer has discarded so far"`
	StderrDroppedBytes int64    `json:"stderr_dropped_bytes"`
	StdoutOmittedBytes int64    `json:"stdout_omitted_bytes" jsonschema:"Unread bytes lost to buffer overflow before this read"`
	StderrOmittedBytes int64    `json:"stderr_omitted_bytes"`
	Truncated          bool     `json:"truncated"`
	Warnings           []string `json:"warnings"`
}

func snapshotOf(snap *procs.Snapshot) snapshotOut {
	o := snapshotOut{Status: snap.Status, SessionID: snap.SessionID, TimedOut: snap.TimedOut, Warnings: warnings(snap.Warnings),
		Stdout: snap.Stdout.Text, StdoutTruncated: snap.Stdout.Truncated, StdoutTruncatedBy: snap.Stdout.TruncatedBy,
		StdoutDroppedBytes: snap.Stdout.Dropped, StdoutOmittedBytes: snap.Stdout.Omitted,
		Stderr: snap.Stderr.Text, StderrTruncated: snap.Stderr.Truncated, StderrTruncatedBy: snap.Stderr.TruncatedBy,
		StderrDroppedBytes: snap.Stderr.Dropped, StderrOmittedBytes: snap.Stderr.Omitted,
		Truncated: snap.Stdout.Truncated || snap.Stderr.Truncated || snap.Stdout.Omitted > 0 || snap.Stderr.Omitted > 0}
	if snap.Ended {
		o.ExitCode = new(snap.ExitCode)
		o.Signal = snap.Signal
	}
	return o
}

func warnings(w []string) []string {
	if w == nil {
		return []string{}
	}
	return w
}

type writeStdinIn struct {
	SessionID      string `json:"session_id" jsonschema:"Session id from exec_command" schema:"minLength=1"`
	Chars          string `json:"chars,omitempty" jsonschema:"Characters to write verbatim (no newline is added); empty polls" schema:"default="`
	YieldTimeMS    int    `json:"yield_time_ms,omitempty" jsonschema:"Wait this long for output" schema:"default=1000,min=0,max=30000"`
	MaxOutputBytes int    `json:"max_output_bytes,omitempty" jsonschema:"Most bytes of each stream to return (the tail)" schema:"default=65536,min=1,max=1048576"`
}

// sessionFailure is what a failed write_stdin or kill_session shows:
// the session, and where it stands when it is known.
type sessionFailure struct {
	SessionID string `json:"session_id"`
	Status    string `json:"status,omitempty"`
}

func (s *Server) writeStdin() tool {
	return define("write_stdin", "Write characters to a running exec session's stdin (empty: just poll) and return its new output.",
		hints("Write stdin", false, false, false, false),
		func(ctx context.Context, in writeStdinIn) (*snapshotOut, error) {
			snap, err := s.procs.Write(ctx, in.SessionID, in.Chars, ms(in.YieldTimeMS), in.MaxOutputBytes)
			if err != nil {
				f := sessionFailure{SessionID: in.SessionID}
				if snap != nil { // SESSION_CLOSED: where the session stands
					f.Status = snap.Status
				}
				return nil, failWith(f, err)
			}
			out := snapshotOf(snap)
			return &out, nil
		})
}

type killSessionIn struct {
	SessionID      string `json:"session_id" jsonschema:"Session id from exec_command" schema:"minLength=1"`
	Signal         string `json:"signal,omitempty" jsonschema:"Signal to send first" schema:"default=TERM,enum=TERM|KILL|INT"`
	WaitMS         int    `json:"wait_ms,omitempty" jsonschema:"Wait this long for the process to end" schema:"default=5000,min=0,max=30000"`
	MaxOutputBytes int    `json:"max_output_bytes,omitempty" jsonschema:"Most bytes of each stream to return (the tail)" schema:"default=65536,min=1,max=1048576"`
}

// killSessionOut is kill_session's result (docs/coding-tools.md#kill_session).
type killSessionOut struct {
	snapshotOut
	Killed bool `json:"killed" jsonschema:"Whether a running command was signalled"`
}

// killSignals are kill_session's signal names.
var killSignals = map[string]syscall.Signal{"TERM": syscall.SIGTERM, "KILL": syscall.SIGKILL, "INT": syscall.SIGINT}

func (s *Server) killSession() tool {
	return define("kill_session", "Terminate an exec session's whole process group and return its remaining output.",
		hints("Kill session", false, true, false, false),
		func(ctx context.Context, in killSessionIn) (*killSessionOut, error) {
			sig, ok := killSignals[in.Signal]
			if !ok {
				sig = syscall.SIGTERM
			}
			snap, err := s.procs.Kill(ctx, in.SessionID, sig, ms(in.WaitMS), in.MaxOutputBytes)
			if err != nil {
				return nil, failWith(sessionFailure{SessionID: in.SessionID}, err)
			}
			out := &killSessionOut{snapshotOut: snapshotOf(snap), Killed: snap.Killed}
			out.SessionID = in.SessionID
			return out, nil
		})
}
