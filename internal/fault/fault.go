// Package fault is the project's one error type: a closed set of codes, a
// message a model or a person can act on, and an optional hint. Transports and
// the CLI map the code to their own vocabulary (JSON-RPC codes, exit codes) in
// one place each.
//
// A failure may also carry a reason, a finer machine-readable name within
// its code, and details, its specifics: the coding tools' error codes
// (PATH_OUTSIDE_WORKSPACE) and details travel this way, and only the
// coding server's edge writes them as that profile's error object. The
// envelope ignores both.
package fault

import (
	"errors"
	"fmt"
)

// Code classifies a failure. The set is closed: add a code only when a caller
// must react to it differently from every existing one.
type Code string

const (
	Invalid     Code = "invalid_argument" // the caller sent something wrong; retrying it unchanged fails again
	NotFound    Code = "not_found"        // the named thing does not exist
	Conflict    Code = "conflict"         // the thing exists, or changed under the caller
	Unavailable Code = "unavailable"      // a dependency (a store, a server) cannot be reached; retrying may help
	Internal    Code = "internal"         // a bug or an unexpected state

	Unauthenticated  Code = "unauthenticated"   // the caller sent no credential, or one that is not valid: send the token
	PermissionDenied Code = "permission_denied" // the credential is valid but does not allow this request as sent
)

// Codes is the closed set, for the surfaces to check that their mapping
// covers every code.
var Codes = []Code{Invalid, NotFound, Conflict, Unavailable, Internal, Unauthenticated, PermissionDenied}

// Error is a failure with a code. Its Error() text is the message alone, so
// that texts fixed by a specification can be matched exactly.
type Error struct {
	Code Code
	Msg  string
	Hint string // what to do next; never part of Error()
	Err  error  // the cause, if any

	// Reason names the failure finely, for a machine, in the vocabulary
	// of the surface that defines it (a coding tools' error code such as
	// PATH_OUTSIDE_WORKSPACE); empty when the code says enough.
	Reason string
	// Details are the failure's specifics (a path, counts), as the
	// surface of Reason writes them; nil when there are none.
	Details map[string]any
}

func (e *Error) Error() string { return e.Msg }
func (e *Error) Unwrap() error { return e.Err }

// New returns an Error with a formatted message.
func New(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...)}
}

// Wrap returns an Error whose message is msg followed by the cause's text.
func Wrap(code Code, err error, msg string) *Error {
	return &Error{Code: code, Msg: msg + ": " + err.Error(), Err: err}
}

// WithHint returns a copy of e carrying hint.
func (e *Error) WithHint(hint string) *Error {
	c := *e
	c.Hint = hint
	return &c
}

// CodeOf returns the code of the first Error in err's chain, or Internal.
func CodeOf(err error) Code {
	var fe *Error
	if errors.As(err, &fe) {
		return fe.Code
	}
	return Internal
}

// HintOf returns the hint of the first Error in err's chain that has one.
func HintOf(err error) string {
	for err != nil {
		if fe, ok := err.(*Error); ok && fe.Hint != "" {
			return fe.Hint
		}
		err = errors.Unwrap(err)
	}
	return ""
}

// Is reports whether err carries code.
func Is(err error, code Code) bool {
	var fe *Error
	return errors.As(err, &fe) && fe.Code == code
}
