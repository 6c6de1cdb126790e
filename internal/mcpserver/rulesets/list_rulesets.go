package rulesets

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/mcpx"
	"github.com/sudocode/sudocode/internal/rulesets"
)

type listIn struct{}

func (h handlers) listRulesets() mcpx.Tool {
	return mcpx.NewTool(&mcp.Tool{
		Name:        "list_rulesets",
		Title:       "List rulesets",
		Description: "List all available rulesets with metadata (name, description, tags, times; no markdown), oldest first.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(false)},
	}, func(ctx context.Context, _ *mcp.CallToolRequest, _ listIn) (*mcp.CallToolResult, error) {
		items, err := h.lib.List(ctx)
		if err != nil {
			return mcpx.ToolError("failed to list rulesets", err), nil
		}
		return mcpx.Text(rulesets.FormatList(items)), nil
	})
}
