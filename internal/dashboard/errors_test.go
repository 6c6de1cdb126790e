package dashboard

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/orchestrator"
)

// TestHTTPStatusOfEveryCode: every code of the closed set has its own
// status, internal and unclassified errors are 500, a cancelled request 499.
func TestHTTPStatusOfEveryCode(t *testing.T) {
	seen := map[int]fault.Code{}
	for _, c := range fault.Codes {
		st := httpStatus(fault.New(c, "x"))
		if prev, dup := seen[st]; dup {
			t.Errorf("%s and %s both map to %d", prev, c, st)
		}
		seen[st] = c
	}
	if st := httpStatus(fmt.Errorf("plain")); st != http.StatusInternalServerError {
		t.Errorf("a plain error: %d", st)
	}
	if st := httpStatus(fmt.Errorf("read: %w", context.Canceled)); st != 499 {
		t.Errorf("a cancelled request: %d", st)
	}
}

// TestFailureSentences: each kind of task error reads as a sentence, with
// the most telling detail and never the details' JSON.
func TestFailureSentences(t *testing.T) {
	for _, c := range []struct {
		err  *orchestrator.TaskError
		want string
	}{
		{nil, ""},
		{&orchestrator.TaskError{Type: orchestrator.ErrTypeStart, Details: "exec: \"claude\": not found"}, `The agent could not start: exec: "claude": not found`},
		{&orchestrator.TaskError{Type: orchestrator.ErrTypeServerStopped, Details: "the server stopped while the agent was running"}, "The server stopped while the agent was running."},
		{&orchestrator.TaskError{Type: orchestrator.ErrTypeAgent, Details: map[string]any{"exit_code": float64(0), "stderr": "", "message": "rate limited",
			"permission_denials": []any{map[string]any{"tool": "Bash"}}}}, "The agent reported a failure: rate limited (the agent's CLI refused 1 tool call)"},
		{&orchestrator.TaskError{Type: orchestrator.ErrTypeSetup, Details: map[string]any{"command": "make deps", "exit_code": float64(2), "stderr": "make: *** no rule\n"}},
			"The setup command make deps failed with code 2: make: *** no rule"},
		{&orchestrator.TaskError{Type: "odd_thing", Details: map[string]any{"message": "something"}}, "The task failed (odd thing): something"},
	} {
		if got := c.err.Sentence(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.err, got, c.want)
		}
	}
}
