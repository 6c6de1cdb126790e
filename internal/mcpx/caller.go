package mcpx

import (
	"context"
	"fmt"
)

type callerKey struct{}

// WithCaller returns ctx carrying the name of the client making a call.
func WithCaller(ctx context.Context, name string) context.Context {
	return context.WithValue(ctx, callerKey{}, name)
}

// CallerFrom is the name of the client making the call ctx belongs to:
// the name of its bearer token in the token file, "token" for the single
// --token, and on stdio (or HTTP without tokens) the local user the server
// runs for (SUDOCODE_ACTOR, else $USER). Tool handlers record it as the
// actor of what they change. It is "" when nothing set it (a server used
// without mcpx's transports), and callers then fall back to their own
// default.
func CallerFrom(ctx context.Context) string {
	name, _ := ctx.Value(callerKey{}).(string)
	return name
}

// Grants say what a client may do on a server shared by a team. They
// matter only where a token file tells the clients apart (Team): there a
// task belongs to the client that created it, and running any command is
// a grant of its own. Without a token file (stdio, no token, one shared
// token) there is one client, the machine's user, who may do everything:
// the zero Grants.
type Grants struct {
	Team    bool // a token file names the clients; the two below apply
	Admin   bool // reads and changes every client's tasks
	Command bool // may start COMMAND tasks (any command line)
}

// The words a token file line may add after NAME TOKEN.
const (
	GrantAdmin   = "admin"
	GrantCommand = "command"
)

type grantsKey struct{}

// WithGrants returns ctx carrying the grants of the client making a call.
func WithGrants(ctx context.Context, g Grants) context.Context {
	return context.WithValue(ctx, grantsKey{}, g)
}

// GrantsFrom is what the client of ctx may do; the zero Grants (one
// client, allowed everything) when nothing set them.
func GrantsFrom(ctx context.Context) Grants {
	g, _ := ctx.Value(grantsKey{}).(Grants)
	return g
}

// GrantsOf are the grants of the caller a token was checked as. Without a
// token file every caller is the one client. With one, the single token
// (--token, caller "token") is the operator's own and has every grant;
// a client of the file has those its line names.
func (a *Auth) GrantsOf(caller string) Grants {
	if !a.NamesClients() {
		return Grants{}
	}
	if caller == SingleTokenCaller && a.hasSingle {
		return Grants{Team: true, Admin: true, Command: true}
	}
	g := Grants{Team: true}
	for _, e := range *a.entries.Load() {
		if e.name == caller {
			g.Admin = g.Admin || e.grants.Admin
			g.Command = g.Command || e.grants.Command
		}
	}
	return g
}

// parseGrants reads the words after NAME TOKEN on a token file line. A
// word it does not know is not quoted: it may be a token put there by
// mistake.
func parseGrants(words []string) (Grants, error) {
	var g Grants
	for i, w := range words {
		switch w {
		case GrantAdmin:
			g.Admin = true
		case GrantCommand:
			g.Command = true
		default:
			return Grants{}, fmt.Errorf("field %d is not a grant: only %s and %s may follow NAME TOKEN", i+3, GrantAdmin, GrantCommand)
		}
	}
	return g, nil
}
