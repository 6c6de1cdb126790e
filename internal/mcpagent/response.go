package mcpagent

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/mcpx"
	"github.com/sudocode/sudocode/internal/orchestrator"
)

// response is every tool's answer, in the requirement's ToolResponse shape (docs/servers.md#agent-responses), with
// the tool's own result type R: its JSON is the structured content and
// the text, and its schema the tool's output schema.
type response[R any] struct {
	Status  string     `json:"status" jsonschema:"success or error"`
	Message string     `json:"message" jsonschema:"What happened, in a sentence"`
	Result  *R         `json:"result,omitempty" jsonschema:"The tool's result; also present on the error of a task that failed, with the task"`
	Error   *errorBody `json:"error,omitempty" jsonschema:"What went wrong, when status is error"`
}

// ToolFailed sends an error response with isError set.
func (r response[R]) ToolFailed() bool { return r.Status == "error" }

// errorBody says what went wrong: a stable type a client can branch on,
// and details (the hint, the task's state) for a person or a model.
type errorBody struct {
	Type    string        `json:"type" jsonschema:"validation_error, not_found, conflict, unavailable, internal_error, or the failed task's error type"`
	Details *errorDetails `json:"details,omitempty" jsonschema:"More about it: the hint, or the failed task's details"`
}

// errorDetails is a refused call's hint, or a failed task's details.
type errorDetails struct {
	Hint string `json:"hint,omitempty" jsonschema:"What to do about it"`
	*orchestrator.FailureDetails
}

// Error types of a failed tool call.
const (
	errValidation  = "validation_error"
	errNotFound    = "not_found"
	errConflict    = "conflict"
	errUnavailable = "unavailable"
	errInternal    = "internal_error"
)

func errorType(c fault.Code) string {
	switch c {
	case fault.Invalid:
		return errValidation
	case fault.NotFound:
		return errNotFound
	case fault.Conflict:
		return errConflict
	case fault.Unavailable:
		return errUnavailable
	default:
		return errInternal
	}
}

// surface answers every failure in the response shape, so the tools'
// output schemas describe their errors too.
var surface = mcpx.Surface{Fail: failure}

// success is a successful response carrying result.
func success[R any](message string, result R) response[R] {
	return response[R]{Status: "success", Message: message, Result: &result}
}

// failure is the tool error for err, its hint in the details.
func failure(err error) *mcp.CallToolResult {
	body := &errorBody{Type: errorType(fault.CodeOf(err))}
	if h := fault.HintOf(err); h != "" {
		body.Details = &errorDetails{Hint: h}
	}
	r, jerr := mcpx.Result(response[struct{}]{Status: "error", Message: err.Error(), Error: body})
	if jerr != nil { // a message and a hint always encode; the text alone if not
		return mcpx.TextError(err)
	}
	return r
}

// invalid is a validation failure with a message of its own.
func invalid(format string, args ...any) error {
	return fault.New(fault.Invalid, format, args...)
}
