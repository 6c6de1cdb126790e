package orchestrator

import (
	"context"
	"strings"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/orchestrator/agent"
)

// Client is who asks the orchestrator for something, as a server shared
// by a team tells its clients apart (by the names of their tokens). A
// task belongs to the client that created it (its Actor): other clients
// may see that it exists and how it stands, but not read its
// instructions or log, nor update, end or merge it, unless they are
// admins. Where clients are not told apart (stdio, no token, one shared
// token) there is one client, the machine's user, who owns every task and
// may do everything.
type Client struct {
	Name    string
	Team    bool // clients are told apart; without it the rest does not apply
	Admin   bool // reads and changes every client's tasks
	Command bool // may start COMMAND tasks, which run any command line
}

type clientKey struct{}

// AsClient returns ctx on behalf of c: the orchestrator's calls with it
// record c as the creator of the tasks they create and refuse what c may
// not do. A ctx without a client is the machine's user's.
func AsClient(ctx context.Context, c Client) context.Context {
	return context.WithValue(ctx, clientKey{}, c)
}

// ClientOf is the client ctx acts for; the zero Client (the machine's
// user) when none was set.
func ClientOf(ctx context.Context) Client {
	c, _ := ctx.Value(clientKey{}).(Client)
	return c
}

// Owns reports whether the client of ctx may read t's instructions and
// log and change t.
func Owns(ctx context.Context, t Task) bool {
	c := ClientOf(ctx)
	return !c.Team || c.Admin || c.Name == t.Actor
}

// CheckOwner refuses a client of ctx that does not own t (Owns).
func CheckOwner(ctx context.Context, t Task) error {
	if Owns(ctx, t) {
		return nil
	}
	return fault.New(fault.Invalid, "task %s belongs to client %s", t.ID, t.Actor).
		WithHint("only the client that created a task, or a client marked admin in the server's token file, may read its instructions and log or change, end or merge it")
}

// checkNamed refuses a task to a request of a team that names no client:
// the task would belong to nobody but the admins.
func checkNamed(ctx context.Context) error {
	if c := ClientOf(ctx); c.Team && c.Name == "" {
		return fault.New(fault.Invalid, "this request names no client of the server's token file, so no task it starts would be its own").
			WithHint("send your token as a bearer header (Authorization: Bearer <token>)")
	}
	return nil
}

// CheckCommandGrant refuses a COMMAND task to a client of a team whose
// token was not granted running commands.
func CheckCommandGrant(ctx context.Context, tool string) error {
	c := ClientOf(ctx)
	if !strings.EqualFold(tool, agent.ToolCommand) || !c.Team || c.Command {
		return nil
	}
	return fault.New(fault.Invalid, "client %s has no command grant: a COMMAND task runs any command line on the server", c.Name).
		WithHint("ask the server's operator to add the word command after your token in the token file (NAME TOKEN command), or start an agent (CLAUDECODE, GEMINI, CODEX, OPENCODE) instead")
}
