package orchestrator

import (
	"fmt"
	"strings"

	"github.com/sudocode/sudocode/internal/plural"
)

// Sentence says what a task's error means: who failed, the exit
// code, and the most telling line: the reason the CLI or its model gave
// (details.message), else the agent's last line on stderr, which for some
// CLIs is only chatter (Codex ends with "Reading prompt from stdin...").
func (e *TaskError) Sentence() string {
	if e == nil {
		return ""
	}
	var d FailureDetails
	if e.Details != nil {
		d = *e.Details
	}
	why := lastLine(d.Message)
	if restatesExit(why) {
		why = ""
	}
	if why == "" && d.Stderr != nil {
		why = lastLine(*d.Stderr)
	}
	if why == "" {
		why = lastLine(d.Message)
	}
	code := "unknown"
	if d.ExitCode != nil {
		code = fmt.Sprint(*d.ExitCode)
	}
	var s string
	switch e.Type {
	case ErrTypeExit:
		s = "The agent exited with code " + code
	case ErrTypeAgent:
		s = "The agent reported a failure"
	case ErrTypeStart:
		s = "The agent could not start"
	case ErrTypeServerStopped:
		return "The server stopped while the agent was running."
	case ErrTypeSetup:
		s = "The setup command " + strings.TrimSpace(d.Command) + " failed"
		if d.ExitCode != nil {
			s += " with code " + code
		}
	default:
		s = "The task failed (" + strings.ReplaceAll(e.Type, "_", " ") + ")"
	}
	if why != "" {
		s += ": " + why
	}
	if n := len(d.PermissionDenials); n > 0 {
		s += " (the agent's CLI refused " + plural.Count(n, "tool call", "tool calls") + ")"
	}
	return s
}

// lastLine is the last non-blank line of s, cut to 300 characters.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	line := strings.TrimSpace(lines[len(lines)-1])
	if r := []rune(line); len(r) > 300 {
		line = string(r[:299]) + "…"
	}
	return line
}

// restatesExit reports whether a message only says the process exited,
// as the adapters' own completion does for a stream with no reason in it:
// the sentence says the exit code already.
func restatesExit(msg string) bool { return strings.HasPrefix(msg, "exited with code ") }
