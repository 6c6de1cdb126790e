package mcpagent

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/mcpx"
	"github.com/sudocode/sudocode/internal/orchestrator"
)

// asClient makes every request act for its caller: mcpx's transports
// learn the caller and its grants from the bearer token (Install), and
// the orchestrator then records the caller as the creator of its tasks
// and refuses another client's (orchestrator.Client). It is added after
// New's other middleware and so runs inside mcpx's, which set the caller.
func asClient(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		g := mcpx.GrantsFrom(ctx)
		ctx = orchestrator.AsClient(ctx, orchestrator.Client{Name: mcpx.CallerFrom(ctx), Team: g.Team, Admin: g.Admin, Command: g.Command})
		return next(ctx, method, req)
	}
}

// owned is task id when the client of ctx owns it (orchestrator.Owns),
// else the refusal naming its owner.
func (h *handlers) owned(ctx context.Context, id string) (orchestrator.Task, error) {
	t, err := h.tasks.Get(ctx, id)
	if err != nil {
		return t, err
	}
	return t, orchestrator.CheckOwner(ctx, t)
}
