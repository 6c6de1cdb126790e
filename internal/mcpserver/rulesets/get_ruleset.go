package rulesets

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/mcpx"
	"github.com/sudocode/sudocode/internal/rulesets"
)

type nameIn struct {
	Name string `json:"name" jsonschema:"Exact ruleset name"`
}

func (h handlers) getRuleset() mcpx.Tool {
	return mcpx.NewTool(&mcp.Tool{
		Name:        "get_ruleset",
		Title:       "Get a ruleset",
		Description: "Retrieve a ruleset by its exact name: front matter (description, tags, times) followed by the markdown rules.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(false)},
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in nameIn) (*mcp.CallToolResult, error) {
		if in.Name == "" {
			return nil, mcpx.MissingParam("name", "the exact name of the ruleset to retrieve")
		}
		r, err := h.lib.Get(ctx, in.Name)
		if err != nil {
			return mcpx.ToolError("failed to retrieve ruleset", err), nil
		}
		return mcpx.Text(rulesets.FormatDocument(r)), nil
	})
}
