package mcpcoding

import (
	"maps"

	"github.com/sudocode/sudocode/internal/workspace"
)

// toolError is the profile's error object (docs/coding-tools.md#errors),
// the wire shape of a tool's failure: code, message, category, retryable
// and details always, and permission_request on a policy refusal. It is
// written here, at the edge, from the *fault.Error the tool failed with
// (toolErrorOf); nothing else creates one.
type toolError struct {
	Code      workspace.Code     `json:"code" jsonschema:"One of the profile's error codes"`
	Message   string             `json:"message" jsonschema:"What went wrong and what to do about it"`
	Category  workspace.Category `json:"category"`
	Retryable bool               `json:"retryable"`
	Details   map[string]any     `json:"details" jsonschema:"Specifics of the failure (path, permission, counts)"`
	// PermissionRequest is set on PERMISSION_REQUIRED only.
	PermissionRequest *refusalRequest `json:"permission_request,omitempty"`
}

// refusalRequest is what a policy refusal asks the client for
// (docs/coding-tools.md#order-of-checks), both at the top of the result and
// inside its error (fields in key order, as it has always been written).
type refusalRequest struct {
	Permission string `json:"permission"`
	Retryable  bool   `json:"retryable"`
	Status     string `json:"status"`
	ToolName   string `json:"tool_name"`
}

// toolErrorOf is the error object of a tool's failure: the first failure in
// err's chain that carries one of the profile's codes, with the category and
// retryable flag of the profile's table (workspace.Classify); any other
// error is an INTERNAL_ERROR whose message is its text. A *fault.Error
// without a reason is one of those: its code is the project's, not the
// profile's.
func toolErrorOf(err error) *toolError {
	fe := workspace.Failure(err)
	if fe == nil {
		fe = workspace.Errorf(workspace.CodeInternal, nil, "internal error: %v", err)
	}
	c := workspace.Classify(fe)
	details := fe.Details
	if details == nil {
		details = map[string]any{}
	}
	if string(c.Code) != fe.Reason { // a reason made without Errorf, as Errorf keeps it
		details = maps.Clone(details)
		details["code"] = fe.Reason
	}
	return &toolError{Code: c.Code, Message: fe.Msg, Category: c.Category, Retryable: c.Retryable, Details: details}
}
