// Package workspace is what the coding tools do to one workspace
// directory: confine every path to it, read and list its files. Search,
// git information, images and patches live in the packages below it.
// Failures are *Error values carrying the coding tools' error codes.
//
// "The profile" in this package and below it is the coding tools'
// contract, written down in docs/coding-tools.md; its sections are cited
// by anchor (docs/coding-tools.md#errors).
package workspace

import (
	"fmt"
	"maps"
)

// Code is one of the profile's error codes (docs/coding-tools.md#errors). The
// set is closed: the constants below are all of them.
type Code string

// The profile's error codes.
const (
	CodeInvalidArgument        Code = "INVALID_ARGUMENT"
	CodePathOutsideWorkspace   Code = "PATH_OUTSIDE_WORKSPACE"
	CodeAbsolutePathDenied     Code = "ABSOLUTE_PATH_DENIED"
	CodeSymlinkEscape          Code = "SYMLINK_ESCAPE"
	CodeNotFound               Code = "NOT_FOUND"
	CodeNotADirectory          Code = "NOT_A_DIRECTORY"
	CodeIsDirectory            Code = "IS_DIRECTORY"
	CodeBinaryFile             Code = "BINARY_FILE"
	CodeUnsupportedEncoding    Code = "UNSUPPORTED_ENCODING"
	CodeOutputTooLarge         Code = "OUTPUT_TOO_LARGE"
	CodeTimeout                Code = "TIMEOUT"
	CodeSessionNotFound        Code = "SESSION_NOT_FOUND"
	CodeSessionClosed          Code = "SESSION_CLOSED"
	CodeCommandRejected        Code = "COMMAND_REJECTED"
	CodePermissionRequired     Code = "PERMISSION_REQUIRED"
	CodePermissionDenied       Code = "PERMISSION_DENIED"
	CodeSandboxUnavailable     Code = "SANDBOX_UNAVAILABLE"
	CodeElicitationUnsupported Code = "ELICITATION_UNSUPPORTED"
	CodePatchFailed            Code = "PATCH_FAILED"
	CodeGitError               Code = "GIT_ERROR"
	CodeInternal               Code = "INTERNAL_ERROR"
)

// Category is an error category of the profile.
type Category string

// The profile's error categories.
const (
	CatValidation Category = "validation"
	CatSecurity   Category = "security"
	CatPermission Category = "permission"
	CatRuntime    Category = "runtime"
	CatNotFound   Category = "not_found"
	CatInternal   Category = "internal"
)

// Categories are all the categories, in the profile's order.
func Categories() []Category {
	return []Category{CatValidation, CatSecurity, CatPermission, CatRuntime, CatNotFound, CatInternal}
}

// codeSpec is what the profile's table says of a code.
type codeSpec struct {
	category  Category
	retryable bool
}

// codeSpecs is the one mapping from a code to its wire error's category
// and retryable flag (docs/coding-tools.md#errors), in the profile's order.
var codeSpecs = []struct {
	code Code
	codeSpec
}{
	{CodeInvalidArgument, codeSpec{CatValidation, false}},
	{CodePathOutsideWorkspace, codeSpec{CatSecurity, false}},
	{CodeAbsolutePathDenied, codeSpec{CatSecurity, false}},
	{CodeSymlinkEscape, codeSpec{CatSecurity, false}},
	{CodeNotFound, codeSpec{CatNotFound, false}},
	{CodeNotADirectory, codeSpec{CatValidation, false}},
	{CodeIsDirectory, codeSpec{CatValidation, false}},
	{CodeBinaryFile, codeSpec{CatValidation, false}},
	{CodeUnsupportedEncoding, codeSpec{CatValidation, false}},
	{CodeOutputTooLarge, codeSpec{CatValidation, false}},
	{CodeTimeout, codeSpec{CatRuntime, true}},
	{CodeSessionNotFound, codeSpec{CatNotFound, false}},
	{CodeSessionClosed, codeSpec{CatRuntime, false}},
	{CodeCommandRejected, codeSpec{CatSecurity, false}},
	{CodePermissionRequired, codeSpec{CatPermission, false}},
	{CodePermissionDenied, codeSpec{CatPermission, false}},
	{CodeSandboxUnavailable, codeSpec{CatSecurity, false}},
	{CodeElicitationUnsupported, codeSpec{CatPermission, false}},
	{CodePatchFailed, codeSpec{CatValidation, false}},
	{CodeGitError, codeSpec{CatRuntime, false}},
	{CodeInternal, codeSpec{CatInternal, false}},
}

// Codes are all the codes, in the profile's order.
func Codes() []Code {
	out := make([]Code, len(codeSpecs))
	for i, s := range codeSpecs {
		out[i] = s.code
	}
	return out
}

// spec is c's row of the table; false for a string that is not a code.
func (c Code) spec() (codeSpec, bool) {
	for _, s := range codeSpecs {
		if s.code == c {
			return s.codeSpec, true
		}
	}
	return codeSpec{}, false
}

// PermissionRequest is what a policy refusal asks the client for
// (docs/coding-tools.md#order-of-checks), both at the top of the result and
// inside its error (fields in key order, as it has always been written).
type PermissionRequest struct {
	Permission string `json:"permission"`
	Retryable  bool   `json:"retryable"`
	Status     string `json:"status"`
	ToolName   string `json:"tool_name"`
}

// Error is a tool failure; its JSON is the profile's error object
// (docs/coding-tools.md#errors): code, message, category, retryable and details
// always, and permission_request on a policy refusal.
type Error struct {
	Code      Code           `json:"code" jsonschema:"One of the profile's error codes"`
	Message   string         `json:"message" jsonschema:"What went wrong and what to do about it"`
	Category  Category       `json:"category"`
	Retryable bool           `json:"retryable"`
	Details   map[string]any `json:"details" jsonschema:"Specifics of the failure (path, permission, counts)"`
	// PermissionRequest is set on PERMISSION_REQUIRED only.
	PermissionRequest *PermissionRequest `json:"permission_request,omitempty"`
}

func (e *Error) Error() string { return e.Message }

// HasCode reports whether e carries code c.
func (e *Error) HasCode(c Code) bool { return e.Code == c }

// Errorf returns an Error with the code's category; details may be nil.
// A string that is not one of the codes cannot reach a client as a code:
// it becomes INTERNAL_ERROR, with the string in details.code.
func Errorf(code Code, details map[string]any, format string, args ...any) *Error {
	details = maps.Clone(details)
	if details == nil {
		details = map[string]any{}
	}
	spec, ok := code.spec()
	if !ok {
		details["code"] = string(code)
		code = CodeInternal
		spec, _ = code.spec()
	}
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Category: spec.category,
		Retryable: spec.retryable, Details: details}
}

// WithCategory returns a copy of e in another category (PATCH_FAILED is
// a runtime failure when a commit fails).
func (e *Error) WithCategory(cat Category) *Error {
	c := *e
	c.Category = cat
	return &c
}
