// Package cli holds the commands of the sudocode binaries. It is the only
// place that turns errors into exit codes.
package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sudocode/sudocode/internal/fault"
)

// Exit codes, stable for scripts.
const (
	exitOK          = 0
	exitError       = 1 // internal or unexpected
	exitInvalid     = 2 // bad usage or bad input
	exitNotFound    = 3
	exitConflict    = 4
	exitUnavailable = 5 // a store or server cannot be reached
	exitMissing     = 6 // a program the command needs is not installed (an agent CLI)
	// A server refused the request's credentials: none or a wrong token
	// (7), or a valid one that does not allow the request as sent (8).
	exitUnauthenticated = 7
	exitDenied          = 8
)

// Main runs the sudocode binary with args (without the program name) until
// it ends or ctx is done (the binary's main cancels it on SIGINT and
// SIGTERM: signals belong to the process, not to one run of a command).
func Main(ctx context.Context, args []string, stdio IO) int {
	return run(ctx, newRootCmd(stdio), args, stdio)
}

// MainRulesetServer runs mcp-ruleset-server: `sudocode mcp rulesets` under
// the name the ruleset server's users know.
func MainRulesetServer(ctx context.Context, args []string, stdio IO) int {
	cmd := newMCPRulesetsCmd(stdio)
	cmd.Use = "mcp-ruleset-server"
	return run(ctx, cmd, args, stdio)
}

func run(ctx context.Context, cmd *cobra.Command, args []string, stdio IO) int {
	cmd.SetArgs(args)
	cmd.SetIn(stdio.In)
	cmd.SetOut(stdio.Out)
	cmd.SetErr(stdio.Err)
	cmd.SilenceErrors = true
	cmd.SilenceUsage = true
	ran, err := cmd.ExecuteContextC(ctx)
	if err == nil {
		return exitOK
	}
	var se silentError
	if errors.As(err, &se) {
		return se.code
	}
	err = withUsageHint(ran, err)
	if asJSON, _ := ran.Flags().GetBool("json"); asJSON || wantsJSON(args) {
		writeJSON(stdio.Err, jsonError(err))
	} else {
		fmt.Fprintln(stdio.Err, "error:", err)
		if hint := fault.HintOf(err); hint != "" {
			fmt.Fprintln(stdio.Err, "hint:", hint)
		}
	}
	return exitCode(err)
}

// wantsJSON reports whether the command line asks for --json. The flag is
// not parsed yet when parsing stops at an earlier bad flag (an unknown one,
// a value of the wrong type), and that error must be JSON too.
func wantsJSON(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "--json", "--json=true":
			return true
		}
	}
	return false
}

// jsonError is an error as --json prints it on stderr: the envelope every
// surface prints, a usage error's code invalid_argument.
func jsonError(err error) fault.Envelope {
	e := fault.EnvelopeOf(err)
	var ue usageError
	if errors.As(err, &ue) {
		e.Error.Code = fault.Invalid
	}
	return e
}

// usageError marks a mistake in the command line itself.
type usageError struct{ error }

// withUsageHint gives a mistake in the command line that has no hint of
// its own (a bad flag, a missing id) the command's usage line as its hint.
func withUsageHint(cmd *cobra.Command, err error) error {
	var ue usageError
	if cmd == nil || !errors.As(err, &ue) || fault.HintOf(err) != "" {
		return err
	}
	return &fault.Error{Code: fault.Invalid, Msg: err.Error(), Hint: usageLine(cmd), Err: err}
}

// usageLine is "usage: " and the command's use line, without cobra's
// " [flags]" (every command has --help and --json).
func usageLine(cmd *cobra.Command) string {
	return "usage: " + strings.TrimSuffix(cmd.UseLine(), " [flags]")
}

// silentError ends a command with an exit code after it has already
// reported what went wrong (e.g. some ids of a close failed).
type silentError struct{ code int }

func (e silentError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

func exitCode(err error) int {
	var ue usageError
	if errors.As(err, &ue) {
		return exitInvalid
	}
	var pe prerequisiteError
	if errors.As(err, &pe) {
		return exitMissing
	}
	var fe *fault.Error
	if !errors.As(err, &fe) {
		return exitError
	}
	switch fe.Code {
	case fault.Invalid:
		return exitInvalid
	case fault.NotFound:
		return exitNotFound
	case fault.Conflict:
		return exitConflict
	case fault.Unavailable:
		return exitUnavailable
	case fault.Unauthenticated:
		return exitUnauthenticated
	case fault.PermissionDenied:
		return exitDenied
	}
	return exitError
}
