package dashboard

import (
	"context"
	"encoding/json"
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
		err  string // as the task store keeps it; a string's details as it kept them before
		want string
	}{
		{``, ""},
		{`{"type":"start_failed","details":"exec: \"claude\": not found"}`, `The agent could not start: exec: "claude": not found`},
		{`{"type":"start_failed","details":{"message":"exec: \"claude\": not found"}}`, `The agent could not start: exec: "claude": not found`},
		{`{"type":"server_stopped","details":"the server stopped while the agent was running"}`, "The server stopped while the agent was running."},
		{`{"type":"agent_error","details":{"exit_code":0,"stderr":"","message":"rate limited","permission_denials":[{"tool":"Bash"}]}}`,
			"The agent reported a failure: rate limited (the agent's CLI refused 1 tool call)"},
		{`{"type":"setup_failed","details":{"command":"make deps","exit_code":2,"stderr":"make: *** no rule\n"}}`,
			"The setup command make deps failed with code 2: make: *** no rule"},
		{`{"type":"odd_thing","details":{"message":"something"}}`, "The task failed (odd thing): something"},
	} {
		var e *orchestrator.TaskError
		if c.err != "" {
			if err := json.Unmarshal([]byte(c.err), &e); err != nil {
				t.Fatal(err)
			}
		}
		if got := e.Sentence(); got != c.want {
			t.Errorf("%s: %q, want %q", c.err, got, c.want)
		}
	}
}
