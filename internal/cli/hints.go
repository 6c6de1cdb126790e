package cli

import (
	"errors"
	"strings"

	"github.com/sudocode/sudocode/internal/fault"
)

// cliHint rewrites the hint of err, written for MCP clients (it names the
// agent server's tools), into the CLI's commands for id, the task the
// command names (the issue for task start, whose only such hint is about
// the issue), so that a shell user is told what they can type. The code
// and message stay.
func cliHint(err error, id string) error {
	var fe *fault.Error
	if !errors.As(err, &fe) {
		return err
	}
	hint := fault.HintOf(err)
	if hint == "" {
		return err
	}
	cli := strings.NewReplacer(
		"report_task", "sudocode task show "+id,
		"update_task", `sudocode task follow-up `+id+` "…"`,
		"end_task", "sudocode task end "+id,
		"update_issue status open", "sudocode issue update "+id+" --status open",
	).Replace(hint)
	if cli == hint {
		return err
	}
	return &fault.Error{Code: fe.Code, Msg: err.Error(), Hint: cli, Err: err}
}
