package coding

import (
	"context"
	"os"
	"syscall"
	"time"

	"github.com/sudocode/sudocode/internal/workspace"
	"github.com/sudocode/sudocode/internal/workspace/policy"
	"github.com/sudocode/sudocode/internal/workspace/procs"
)

type execCommandIn struct {
	Cmd            string            `json:"cmd"`
	Workdir        string            `json:"workdir"`
	TimeoutMS      int               `json:"timeout_ms"`
	YieldTimeMS    int               `json:"yield_time_ms"`
	MaxOutputBytes int               `json:"max_output_bytes"`
	Stdin          string            `json:"stdin"`
	TTY            bool              `json:"tty"`
	Env            map[string]string `json:"env"`
}

// snapshotFields are the fields of a session snapshot (§6.6–§6.8).
var snapshotFields = map[string]any{"status": tString, "session_id": tString, "exit_code": tInt, "signal": tString,
	"timed_out": tBool, "stdout": tString, "stderr": tString, "stdout_truncated": tBool, "stderr_truncated": tBool,
	"stdout_truncated_by": tString, "stderr_truncated_by": tString,
	"stdout_dropped_bytes": tInt, "stderr_dropped_bytes": tInt, "stdout_omitted_bytes": tInt, "stderr_omitted_bytes": tInt,
	"truncated": tBool}

func withFields(base map[string]any, extra map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range base {
		out[k] = v
	}
	for k, v := range extra {
		out[k] = v
	}
	return out
}

var sessionFields = withFields(snapshotFields, map[string]any{"elapsed_ms": tInt, "permission_request": tObject})

func (s *Server) execCommand() tool {
	return define("exec_command", "Run a shell command in the workspace under the safety policy; returns its output, or a session id while it runs.",
		hints("Execute command", false, true, false, true),
		object([]string{"cmd"},
			"cmd", str("Shell command, run with /bin/sh -c").nonEmpty(),
			"workdir", str("Workspace-relative working directory").def("."),
			"timeout_ms", integer("Kill the command after this many milliseconds", 1, 600000).def(30000),
			"yield_time_ms", integer("Wait this long for the command to finish before returning a session", 0, 30000).def(1000),
			"max_output_bytes", integer("Most bytes of each stream to return (the tail)", 1, 1048576).def(65536),
			"stdin", str("Text written to standard input, which is then closed (unless tty)").def(""),
			"tty", boolean("Run on a pseudo-terminal and keep stdin open for write_stdin").def(false),
			"env", stringMap("Extra environment variables").def(map[string]string{}),
		),
		sessionFields,
		func(ctx context.Context, in execCommandIn) (map[string]any, error) {
			rejected := map[string]any{"status": "rejected"}
			// Step 0: the working directory (§5.2), even in dangerous mode.
			if in.Workdir == "" {
				in.Workdir = "."
			}
			dir, err := s.root.Existing(in.Workdir)
			if err != nil {
				return rejected, err
			}
			if fi, err := os.Stat(dir.Abs); err != nil || !fi.IsDir() {
				return rejected, workspace.Errorf(workspace.CodeNotADirectory, map[string]any{"path": dir.Rel},
					"workdir %s is not a directory", dir.Rel)
			}
			// Steps 1–7: the policy, relative paths taken from workdir.
			if r := policy.CheckWith(s.root, dir.Rel, in.Cmd, in.Env, policy.Mode{Dangerous: s.opts.Dangerous, Network: s.opts.AllowNetwork}); r != nil {
				return permissionRequired(r), nil
			}
			// Step 8: the sandbox and the launch.
			snap, err := s.procs.Start(ctx, procs.Request{Cmd: in.Cmd, Dir: dir.Abs, Env: in.Env, Stdin: in.Stdin, TTY: in.TTY,
				Timeout: ms(in.TimeoutMS), Yield: ms(in.YieldTimeMS), MaxOutputBytes: in.MaxOutputBytes})
			if err != nil {
				return rejected, err
			}
			f := snapshotResult(snap)
			f["elapsed_ms"] = snap.Elapsed.Milliseconds()
			return f, nil
		})
}

// permissionRequired is the result of a policy refusal (§8.1): the
// permission request both at the top level and inside the error. It is
// built whole (ok included) because the error object carries more than a
// *workspace.Error does.
func permissionRequired(r *policy.Refusal) map[string]any {
	details := map[string]any{}
	for k, v := range r.Details {
		details[k] = v
	}
	details["permission"] = r.Permission
	request := map[string]any{"tool_name": "exec_command", "permission": r.Permission, "status": "required", "retryable": r.Grantable()}
	e := workspace.Errorf(workspace.CodePermissionRequired, details, "%s", r.Message)
	return map[string]any{
		"ok": false, "status": "permission_required", "permission_request": request, "warnings": []string{},
		"error": map[string]any{"code": e.Code, "message": e.Message, "category": e.Category, "retryable": e.Retryable,
			"details": e.Details, "permission_request": request},
	}
}

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

// snapshotResult is a snapshot's fields: exit_code and signal only once
// the command has ended, session_id while it is a session.
func snapshotResult(snap *procs.Snapshot) map[string]any {
	f := map[string]any{"status": snap.Status, "timed_out": snap.TimedOut, "warnings": warnings(snap.Warnings)}
	if snap.SessionID != "" {
		f["session_id"] = snap.SessionID
	}
	if snap.Ended {
		f["exit_code"] = snap.ExitCode
		if snap.Signal != "" {
			f["signal"] = snap.Signal
		}
	}
	for name, o := range map[string]procs.Output{"stdout": snap.Stdout, "stderr": snap.Stderr} {
		f[name] = o.Text
		f[name+"_truncated"] = o.Truncated
		f[name+"_dropped_bytes"] = o.Dropped
		f[name+"_omitted_bytes"] = o.Omitted
		if o.TruncatedBy != "" {
			f[name+"_truncated_by"] = o.TruncatedBy
		}
	}
	f["truncated"] = snap.Stdout.Truncated || snap.Stderr.Truncated || snap.Stdout.Omitted > 0 || snap.Stderr.Omitted > 0
	return f
}

func warnings(w []string) []string {
	if w == nil {
		return []string{}
	}
	return w
}

type sessionIn struct {
	SessionID      string `json:"session_id"`
	Chars          string `json:"chars"`
	YieldTimeMS    int    `json:"yield_time_ms"`
	MaxOutputBytes int    `json:"max_output_bytes"`
	Signal         string `json:"signal"`
	WaitMS         int    `json:"wait_ms"`
}

func (s *Server) writeStdin() tool {
	return define("write_stdin", "Write characters to a running exec session's stdin (empty: just poll) and return its new output.",
		hints("Write stdin", false, false, false, false),
		object([]string{"session_id"},
			"session_id", str("Session id from exec_command").nonEmpty(),
			"chars", str("Characters to write verbatim (no newline is added); empty polls").def(""),
			"yield_time_ms", integer("Wait this long for output", 0, 30000).def(1000),
			"max_output_bytes", integer("Most bytes of each stream to return (the tail)", 1, 1048576).def(65536),
		),
		snapshotFields,
		func(ctx context.Context, in sessionIn) (map[string]any, error) {
			snap, err := s.procs.Write(ctx, in.SessionID, in.Chars, ms(in.YieldTimeMS), in.MaxOutputBytes)
			if err != nil {
				f := map[string]any{"session_id": in.SessionID}
				if snap != nil { // SESSION_CLOSED: where the session stands
					f["status"] = snap.Status
				}
				return f, err
			}
			return snapshotResult(snap), nil
		})
}

// killSignals are kill_session's signal names.
var killSignals = map[string]syscall.Signal{"TERM": syscall.SIGTERM, "KILL": syscall.SIGKILL, "INT": syscall.SIGINT}

func (s *Server) killSession() tool {
	return define("kill_session", "Terminate an exec session's whole process group and return its remaining output.",
		hints("Kill session", false, true, false, false),
		object([]string{"session_id"},
			"session_id", str("Session id from exec_command").nonEmpty(),
			"signal", str("Signal to send first").def("TERM").oneOf("TERM", "KILL", "INT"),
			"wait_ms", integer("Wait this long for the process to end", 0, 30000).def(5000),
			"max_output_bytes", integer("Most bytes of each stream to return (the tail)", 1, 1048576).def(65536),
		),
		withFields(snapshotFields, map[string]any{"killed": tBool}),
		func(ctx context.Context, in sessionIn) (map[string]any, error) {
			sig, ok := killSignals[in.Signal]
			if !ok {
				sig = syscall.SIGTERM
			}
			snap, err := s.procs.Kill(ctx, in.SessionID, sig, ms(in.WaitMS), in.MaxOutputBytes)
			if err != nil {
				return map[string]any{"session_id": in.SessionID}, err
			}
			f := snapshotResult(snap)
			f["session_id"] = in.SessionID
			f["killed"] = snap.Killed
			return f, nil
		})
}
