package mcptracker

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/mcpx"
	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

type linkIn struct {
	FromID string  `json:"from_id" jsonschema:"Source entity ID (issue or spec)"`
	ToID   string  `json:"to_id" jsonschema:"Target entity ID (issue or spec)"`
	Type   *string `json:"type,omitempty" jsonschema:"Relationship type, read from_id first. blocks: from_id waits for to_id (until it is done). depends-on: from_id waits for to_id too. parent-child: from_id is the parent of to_id. implements, references, discovered-from, related never block."`
}

func (s *server) link() mcpx.Tool {
	return mcpx.NewTool(mcpx.Faults, &mcp.Tool{
		Name:  "link",
		Title: "Link two items",
		Description: "Create a relationship from_id → to_id. Direction matters: link(from_id=A, to_id=B, type=blocks) means A waits for B, " +
			"until B is done (closed issue; approved or deprecated spec); depends-on reads the same way. " +
			"parent-child: from_id is the parent of to_id, and passes its unfinished blockers down. " +
			"Unknown ids, self-links and links that would make a blocking cycle are refused.",
		InputSchema: mcpx.Schema[linkIn](map[string]any{"type": string(tracker.DefaultRelType)}, map[string][]string{"type": names(tracker.RelTypes)}),
		Annotations: &mcp.ToolAnnotations{DestructiveHint: new(false), IdempotentHint: true, OpenWorldHint: new(false)},
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in linkIn) (out tracker.LinkResult, err error) {
		return call(ctx, s, func(r *store.Repo) (tracker.LinkResult, error) {
			return r.Link(ctx, in.FromID, in.ToID, deref(in.Type))
		})
	})
}

func (s *server) unlink() mcpx.Tool {
	return mcpx.NewTool(mcpx.Faults, &mcp.Tool{
		Name:        "unlink",
		Title:       "Remove a link",
		Description: "Remove the relationship from_id → to_id of the given type.",
		InputSchema: mcpx.Schema[linkIn](map[string]any{"type": string(tracker.DefaultRelType)}, map[string][]string{"type": names(tracker.RelTypes)}),
		Annotations: changes,
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in linkIn) (out tracker.LinkResult, err error) {
		typ := deref(in.Type)
		if typ == "" {
			typ = string(tracker.DefaultRelType)
		}
		return call(ctx, s, func(r *store.Repo) (tracker.LinkResult, error) { return r.Unlink(ctx, in.FromID, in.ToID, typ) })
	})
}
