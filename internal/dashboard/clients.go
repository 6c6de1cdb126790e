package dashboard

import (
	"context"
	"net/http"

	"github.com/sudocode/sudocode/internal/mcpx"
	"github.com/sudocode/sudocode/internal/orchestrator"
)

// ActAs returns d with each request acting for the client of the token
// file its bearer token names (orchestrator.AsClient), with that token's
// grants: the tasks it starts are its own, and another client's task is
// refused to it as over MCP. The page's cookie acts for the client whose
// token opened the page (Options.ClientOf). Without a token file there is
// one client, the machine's user, and d is returned as it is. A request
// that names no client may look at the tasks, not at their instructions
// or logs, and may change none.
func ActAs(auth *mcpx.Auth, d *Dashboard) http.Handler {
	if !auth.NamesClients() {
		return d
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := orchestrator.Client{Team: true}
		name, ok := "", false
		if tok, bearer := mcpx.BearerToken(r.Header.Get("Authorization")); bearer {
			name, ok = auth.Check(tok)
		} else {
			name, ok = d.pageClient(r)
		}
		if ok {
			g := auth.GrantsOf(name)
			c = orchestrator.Client{Name: name, Team: true, Admin: g.Admin, Command: g.Command}
		}
		d.ServeHTTP(w, r.WithContext(orchestrator.AsClient(r.Context(), c)))
	})
}

// ownedTask is task id when the request's client owns it (its
// instructions and log are its to read), else the refusal naming its
// owner.
func ownedTask(ctx context.Context, o *orchestrator.Orchestrator, id string) (orchestrator.Task, error) {
	t, err := o.Get(ctx, id)
	if err != nil {
		return t, err
	}
	return t, orchestrator.CheckOwner(ctx, t)
}

// listed is t as a list shows it to the request's client: another
// client's task without what it was told, how it was configured or what
// it answered.
func listed(ctx context.Context, t orchestrator.Task) orchestrator.Task {
	if orchestrator.Owns(ctx, t) {
		return t
	}
	t.Instructions, t.Config, t.Result = "", nil, nil
	return t
}
