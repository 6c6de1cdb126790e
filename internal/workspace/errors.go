// Package workspace is what the coding tools do to one workspace
// directory: confine every path to it, read and list its files. Search,
// git information, images and patches live in the packages below it.
// Failures are *fault.Error values (Errorf): the fault code classifies them
// for the project, the reason is the coding tools' error code, and the
// details are the specifics the profile's error object carries. This file
// holds the profile's table of codes; the coding server's edge
// (internal/mcpcoding) writes the error object from it.
//
// "The profile" in this package and below it is the coding tools'
// contract, written down in docs/coding-tools.md; its sections are cited
// by anchor (docs/coding-tools.md#errors).
package workspace

import (
	"fmt"
	"maps"

	"github.com/sudocode/sudocode/internal/fault"
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

// codeSpec is what the profile's table says of a code, and the project's
// fault code for it.
type codeSpec struct {
	category  Category
	retryable bool
	fault     fault.Code
}

// codeSpecs is the one mapping from a code to its wire error's category
// and retryable flag (docs/coding-tools.md#errors), in the profile's order,
// and to the fault code of the failures that carry it.
var codeSpecs = []struct {
	code Code
	codeSpec
}{
	{CodeInvalidArgument, codeSpec{CatValidation, false, fault.Invalid}},
	{CodePathOutsideWorkspace, codeSpec{CatSecurity, false, fault.PermissionDenied}},
	{CodeAbsolutePathDenied, codeSpec{CatSecurity, false, fault.PermissionDenied}},
	{CodeSymlinkEscape, codeSpec{CatSecurity, false, fault.PermissionDenied}},
	{CodeNotFound, codeSpec{CatNotFound, false, fault.NotFound}},
	{CodeNotADirectory, codeSpec{CatValidation, false, fault.Invalid}},
	{CodeIsDirectory, codeSpec{CatValidation, false, fault.Invalid}},
	{CodeBinaryFile, codeSpec{CatValidation, false, fault.Invalid}},
	{CodeUnsupportedEncoding, codeSpec{CatValidation, false, fault.Invalid}},
	{CodeOutputTooLarge, codeSpec{CatValidation, false, fault.Invalid}},
	{CodeTimeout, codeSpec{CatRuntime, true, fault.Unavailable}},
	{CodeSessionNotFound, codeSpec{CatNotFound, false, fault.NotFound}},
	{CodeSessionClosed, codeSpec{CatRuntime, false, fault.Conflict}},
	{CodeCommandRejected, codeSpec{CatSecurity, false, fault.PermissionDenied}},
	{CodePermissionRequired, codeSpec{CatPermission, false, fault.PermissionDenied}},
	{CodePermissionDenied, codeSpec{CatPermission, false, fault.PermissionDenied}},
	{CodeSandboxUnavailable, codeSpec{CatSecurity, false, fault.Unavailable}},
	{CodeElicitationUnsupported, codeSpec{CatPermission, false, fault.PermissionDenied}},
	{CodePatchFailed, codeSpec{CatValidation, false, fault.Invalid}},
	{CodeGitError, codeSpec{CatRuntime, false, fault.Unavailable}},
	{CodeInternal, codeSpec{CatInternal, false, fault.Internal}},
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

// Errorf returns the failure with the profile's code (its reason) and
// details, which may be nil, under the code's fault code. A string that is
// not one of the codes cannot reach a client as a code: it becomes
// INTERNAL_ERROR, with the string in details.code.
func Errorf(code Code, details map[string]any, format string, args ...any) *fault.Error {
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
	return &fault.Error{Code: spec.fault, Msg: fmt.Sprintf(format, args...), Reason: string(code), Details: details}
}

// Failure is the first failure in err's chain that carries one of the
// profile's codes, or nil.
func Failure(err error) *fault.Error {
	for err != nil {
		if fe, ok := err.(*fault.Error); ok && fe.Reason != "" {
			return fe
		}
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		case interface{ Unwrap() []error }:
			for _, e := range u.Unwrap() {
				if fe := Failure(e); fe != nil {
					return fe
				}
			}
			return nil
		default:
			return nil
		}
	}
	return nil
}

// CodeOf is the profile's code of the first failure in err's chain that
// has one, or "".
func CodeOf(err error) Code {
	if fe := Failure(err); fe != nil {
		return Code(fe.Reason)
	}
	return ""
}

// Class is what the profile's error object says of a failure besides its
// message and details.
type Class struct {
	Code      Code
	Category  Category
	Retryable bool
}

// Classify is what the profile's error object says of fe: its code, its
// category and whether it is retryable. The category is the table's, unless
// fe's fault code is not the code's own: then it is the category of that
// fault (a patch that fails on disk, not on its text, is unavailable: a
// runtime PATCH_FAILED). A reason that is not one of the codes is
// INTERNAL_ERROR.
func Classify(fe *fault.Error) Class {
	code := Code(fe.Reason)
	spec, ok := code.spec()
	if !ok {
		code = CodeInternal
		spec, _ = code.spec()
	} else if c, known := faultCategories[fe.Code]; known && fe.Code != spec.fault {
		spec.category = c
	}
	return Class{Code: code, Category: spec.category, Retryable: spec.retryable}
}

// faultCategories is the category of a failure whose fault code is not its
// profile code's own.
var faultCategories = map[fault.Code]Category{
	fault.Invalid: CatValidation, fault.NotFound: CatNotFound, fault.Conflict: CatRuntime, fault.Unavailable: CatRuntime,
	fault.Internal: CatInternal, fault.Unauthenticated: CatPermission, fault.PermissionDenied: CatPermission,
}
