package mcprulesets

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/mcpx"
)

type deleteIn struct {
	Name string `json:"name" jsonschema:"Ruleset name to delete" missing:"the name of the ruleset to delete"`
}

// deleted is delete_ruleset's result.
type deleted struct {
	Name    string `json:"name" jsonschema:"The deleted ruleset's name"`
	Deleted bool   `json:"deleted" jsonschema:"Always true: a ruleset that is not there is an error"`
}

func (d deleted) ToolText() string { return "Successfully deleted ruleset '" + d.Name + "'" }

func (h handlers) deleteRuleset() mcpx.Tool {
	return mcpx.NewTool(mcpx.Texts, &mcp.Tool{
		Name:        "delete_ruleset",
		Title:       "Delete a ruleset",
		Description: "Delete a ruleset by name. When the name does not exist, the error lists the existing rulesets.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: new(true), IdempotentHint: false, OpenWorldHint: new(false)},
	}, func(ctx context.Context, req *mcp.CallToolRequest, in deleteIn) (deleted, error) {
		if err := h.libFor(ctx).Delete(ctx, in.Name); err != nil {
			return deleted{}, mcpx.Prefixed("failed to delete ruleset", err)
		}
		mcpx.Notify(ctx, h.logger, req.Session, "rulesets", "deleted ruleset", "name", in.Name)
		return deleted{Name: in.Name, Deleted: true}, nil
	})
}
