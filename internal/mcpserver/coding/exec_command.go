package coding

import (
	"context"
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

var sessionFields = map[string]any{"status": tString, "session_id": tString, "exit_code": tInt, "signal": tString,
	"timed_out": tBool, "stdout": tString, "stderr": tString, "stdout_truncated": tBool, "stderr_truncated": tBool,
	"stdout_dropped_bytes": tInt, "stderr_dropped_bytes": tInt, "stdout_omitted_bytes": tInt, "stderr_omitted_bytes": tInt,
	"truncated": tBool, "elapsed_ms": tInt, "permission_request": tObject}

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
			return map[string]any{"status": "rejected"}, notYet("exec_command")
		})
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
		sessionFields,
		func(ctx context.Context, in sessionIn) (map[string]any, error) {
			return nil, notYet("write_stdin")
		})
}

func (s *Server) killSession() tool {
	return define("kill_session", "Terminate an exec session's whole process group and return its remaining output.",
		hints("Kill session", false, true, false, false),
		object([]string{"session_id"},
			"session_id", str("Session id from exec_command").nonEmpty(),
			"signal", str("Signal to send first").def("TERM").oneOf("TERM", "KILL", "INT"),
			"wait_ms", integer("Wait this long for the process to end", 0, 30000).def(5000),
			"max_output_bytes", integer("Most bytes of each stream to return (the tail)", 1, 1048576).def(65536),
		),
		map[string]any{"session_id": tString, "killed": tBool, "status": tString, "exit_code": tInt, "signal": tString,
			"stdout": tString, "stderr": tString},
		func(ctx context.Context, in sessionIn) (map[string]any, error) {
			return nil, notYet("kill_session")
		})
}

