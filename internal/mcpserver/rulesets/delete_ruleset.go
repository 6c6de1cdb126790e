package rulesets

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/mcpx"
)

type deleteIn struct {
	Name string `json:"name" jsonschema:"Ruleset name to delete"`
}

func (h handlers) deleteRuleset() mcpx.Tool {
	return mcpx.NewTool(&mcp.Tool{
		Name:        "delete_ruleset",
		Title:       "Delete a ruleset",
		Description: "Delete a ruleset by name. When the name does not exist, the error lists the existing rulesets.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(true), IdempotentHint: false, OpenWorldHint: ptr(false)},
	}, func(ctx context.Context, req *mcp.CallToolRequest, in deleteIn) (*mcp.CallToolResult, error) {
		if in.Name == "" {
			return nil, mcpx.MissingParam("name", "the name of the ruleset to delete")
		}
		if err := h.libFor(ctx).Delete(ctx, in.Name); err != nil {
			return mcpx.ToolError("failed to delete ruleset", err), nil
		}
		mcpx.Notify(ctx, h.logger, req.Session, "rulesets", "deleted ruleset", "name", in.Name)
		return mcpx.Text("Successfully deleted ruleset '" + in.Name + "'"), nil
	})
}
