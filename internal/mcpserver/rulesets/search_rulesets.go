package rulesets

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/mcpx"
	"github.com/sudocode/sudocode/internal/rulesets"
)

type searchIn struct {
	Pattern string `json:"pattern" jsonschema:"Glob pattern matched against the full name: * matches any sequence, ? one character (e.g., *python*, style_*, *_guide)"`
}

func (h handlers) searchRulesets() mcpx.Tool {
	return mcpx.NewTool(&mcp.Tool{
		Name:        "search_rulesets",
		Title:       "Search rulesets by name",
		Description: "Search for rulesets by name pattern using glob syntax ('*' any sequence, '?' one character, matched against the full name). Returns metadata without markdown; '*' lists everything.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(false)},
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in searchIn) (*mcp.CallToolResult, error) {
		if in.Pattern == "" {
			return nil, mcpx.MissingParam("pattern", "a glob pattern such as '*python*' ('*' matches every ruleset)")
		}
		items, err := h.lib.Search(ctx, in.Pattern)
		if err != nil {
			return mcpx.ToolError("failed to search rulesets", err), nil
		}
		return mcpx.Text(rulesets.FormatSearch(in.Pattern, items)), nil
	})
}
