package agent

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/mcpx"
)

// response is every tool's answer, in the seed's ToolResponse shape.
type response struct {
	Status  string     `json:"status"` // "success" or "error"
	Message string     `json:"message"`
	Result  any        `json:"result,omitempty"`
	Error   *errorBody `json:"error,omitempty"`
}

// errorBody says what went wrong: a stable type a client can branch on,
// and details (the hint, the task's state) for a person or a model.
type errorBody struct {
	Type    string `json:"type"`
	Details any    `json:"details,omitempty"`
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

// success is a successful tool result carrying result.
func success(message string, result any) (*mcp.CallToolResult, error) {
	return mcpx.JSON(response{Status: "success", Message: message, Result: result})
}

// failure is a tool error for err, its hint in the details.
func failure(err error) (*mcp.CallToolResult, error) {
	body := &errorBody{Type: errorType(fault.CodeOf(err))}
	if h := fault.HintOf(err); h != "" {
		body.Details = map[string]string{"hint": h}
	}
	r, jerr := mcpx.JSON(response{Status: "error", Message: err.Error(), Error: body})
	if jerr != nil {
		return nil, jerr
	}
	r.IsError = true
	return r, nil
}

// invalid is a validation failure with a message of its own.
func invalid(format string, args ...any) (*mcp.CallToolResult, error) {
	return failure(fault.New(fault.Invalid, format, args...))
}
