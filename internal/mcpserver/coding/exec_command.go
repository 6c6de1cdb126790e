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

type viewImageIn struct {
	Path       string `json:"path"`
	MaxBytes   int    `json:"max_bytes"`
	MaxWidth   int    `json:"max_width"`
	MaxHeight  int    `json:"max_height"`
	AutoResize bool   `json:"auto_resize"`
	Output     string `json:"output"`
}

func (s *Server) viewImage() tool {
	return define("view_image", "Return a workspace image (PNG, JPEG, GIF or WebP) for viewing, resized to fit limits.",
		hints("View image", true, false, true, false),
		object([]string{"path"},
			"path", str("Workspace-relative image path").nonEmpty(),
			"max_bytes", integer("Largest image data to return", 1024, 10485760).def(5242880),
			"max_width", integer("Widest image to return, in pixels", 1, 10000).def(2000),
			"max_height", integer("Tallest image to return, in pixels", 1, 10000).def(2000),
			"auto_resize", boolean("Scale down images over the limits").def(true),
			"output", str("mcp_image: an image content item; data_url: a data URL in the structured result").def("mcp_image").oneOf("mcp_image", "data_url"),
		),
		map[string]any{"path": tString, "mime_type": tString, "bytes": tInt, "width": tInt, "height": tInt, "resized": tBool,
			"original": tObject, "data_url": tString},
		func(ctx context.Context, in viewImageIn) (map[string]any, error) {
			return nil, notYet("view_image")
		})
}
