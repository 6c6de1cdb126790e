package orchestrator

import (
	"encoding/json"
)

// TaskError is why a task failed, in the agent server's {type, details}
// shape (docs/servers.md#agent-responses).
type TaskError struct {
	Type    string          `json:"type"`
	Details *FailureDetails `json:"details,omitempty" jsonschema:"More about the failure; for a failed run, the reason the CLI reported, its exit code and the tail of its stderr"`
}

// FailureDetails is more about a task's failure: for a run, the reason
// the CLI (or its model) gave, its exit code, the tail of its stderr and
// the tool calls its CLI refused; for a setup command, the command too;
// for a start or a server stop, the reason alone.
type FailureDetails struct {
	Message           string   `json:"message,omitempty" jsonschema:"The reason, in a sentence"`
	Command           string   `json:"command,omitempty" jsonschema:"The setup command that failed"`
	ExitCode          *int     `json:"exit_code,omitempty" jsonschema:"The process's exit code"`
	Stderr            *string  `json:"stderr,omitempty" jsonschema:"The tail of the process's stderr"`
	PermissionDenials []Denial `json:"permission_denials,omitempty" jsonschema:"The tool calls the agent's CLI refused"`
}

// because is details holding only a reason.
func because(reason string) *FailureDetails { return &FailureDetails{Message: reason} }

// exited is the details of a process that exited with code, writing
// stderr.
func exited(code int, stderr string) *FailureDetails {
	return &FailureDetails{ExitCode: &code, Stderr: &stderr}
}

// UnmarshalJSON reads details as this version writes them, and as a
// string, which is how a start's or a server stop's reason was kept
// before.
func (d *FailureDetails) UnmarshalJSON(b []byte) error {
	var reason string
	if json.Unmarshal(b, &reason) == nil {
		*d = FailureDetails{Message: reason}
		return nil
	}
	type plain FailureDetails // without this method
	return json.Unmarshal(b, (*plain)(d))
}
