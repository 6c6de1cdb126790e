package gitx

import (
	"fmt"
	"strings"
	"time"
)

// NotFoundError is a git binary that is not installed or not on PATH.
type NotFoundError struct{ Binary string }

func (e *NotFoundError) Error() string {
	return "git binary not found: " + e.Binary + " is not installed or not on PATH"
}

// ExitError is a git process that ran and failed.
type ExitError struct {
	Args   []string // the caller's arguments, subcommand first
	Code   int
	Stderr string
}

func (e *ExitError) Error() string {
	msg := strings.TrimSpace(e.Stderr)
	if msg == "" {
		msg = fmt.Sprintf("exit status %d", e.Code)
	}
	return "git " + strings.Join(e.Args, " ") + ": " + msg
}

// TimeoutError is a git process killed at its deadline.
type TimeoutError struct {
	Args    []string
	Timeout time.Duration
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("git %s timed out after %s", first(e.Args), e.Timeout)
}

// RefusedError is a repository whose layout points git outside its work
// tree (a .git file, commondir or alternates naming another place, or
// core.worktree): a command that can write the work tree could otherwise
// make git read, and a sandboxed git write, another repository.
type RefusedError struct {
	Top    string // the work tree's top level
	Reason string
}

func (e *RefusedError) Error() string {
	return "git refused in " + e.Top + ": " + e.Reason + ". Run git where the repository's own .git lies inside the work tree (the main checkout), or restore the .git that git created there"
}
