// Package workspace is what the coding tools do to one workspace
// directory: confine every path to it, read, list and search its files,
// patch them transactionally and inspect its git state. Failures are
// *Error values carrying the coding-tools profile's codes.
package workspace

import "fmt"

// Error categories of the profile.
const (
	CatValidation = "validation"
	CatSecurity   = "security"
	CatPermission = "permission"
	CatRuntime    = "runtime"
	CatNotFound   = "not_found"
	CatInternal   = "internal"
)

// Error is a tool failure in the profile's shape.
type Error struct {
	Code      string         `json:"code"`
	Message   string         `json:"message"`
	Category  string         `json:"category"`
	Retryable bool           `json:"retryable"`
	Details   map[string]any `json:"details"`
}

func (e *Error) Error() string { return e.Message }

// categories of the profile's codes; retryable ones are listed apart.
var categories = map[string]string{
	"INVALID_ARGUMENT":        CatValidation,
	"PATH_OUTSIDE_WORKSPACE":  CatSecurity,
	"ABSOLUTE_PATH_DENIED":    CatSecurity,
	"SYMLINK_ESCAPE":          CatSecurity,
	"NOT_FOUND":               CatNotFound,
	"NOT_A_DIRECTORY":         CatValidation,
	"IS_DIRECTORY":            CatValidation,
	"BINARY_FILE":             CatValidation,
	"UNSUPPORTED_ENCODING":    CatValidation,
	"OUTPUT_TOO_LARGE":        CatValidation,
	"TIMEOUT":                 CatRuntime,
	"SESSION_NOT_FOUND":       CatNotFound,
	"SESSION_CLOSED":          CatRuntime,
	"COMMAND_REJECTED":        CatSecurity,
	"PERMISSION_REQUIRED":     CatPermission,
	"PERMISSION_DENIED":       CatPermission,
	"SANDBOX_UNAVAILABLE":     CatSecurity,
	"ELICITATION_UNSUPPORTED": CatPermission,
	"PATCH_FAILED":            CatValidation,
	"GIT_ERROR":               CatRuntime,
	"INTERNAL_ERROR":          CatInternal,
}

// Errorf returns an Error with the code's category; details may be nil.
func Errorf(code string, details map[string]any, format string, args ...any) *Error {
	cat, ok := categories[code]
	if !ok {
		panic("unknown error code " + code)
	}
	if details == nil {
		details = map[string]any{}
	}
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Category: cat, Retryable: code == "TIMEOUT", Details: details}
}

// WithCategory returns a copy of e in another category (PATCH_FAILED is
// a runtime failure when a commit fails).
func (e *Error) WithCategory(cat string) *Error {
	c := *e
	c.Category = cat
	return &c
}
