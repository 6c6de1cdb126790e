package mcprulesets

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/mcpx"
	"github.com/sudocode/sudocode/internal/rulesets"
)

type searchIn struct {
	Pattern string  `json:"pattern" jsonschema:"Glob pattern matched against the full name: * matches any sequence, ? one character (e.g., *python*, style_*, *_guide)" missing:"a glob pattern such as '*python*' ('*' matches every ruleset)"`
	Cursor  *string `json:"cursor,omitempty" jsonschema:"The cursor after 'Next cursor:' at the end of a previous page of the same list: continues it"`
	Limit   *int    `json:"limit,omitempty" jsonschema:"Most rulesets per page, 1 to 1000"`
}

func (h handlers) searchRulesets() mcpx.Tool {
	return mcpx.NewTool(mcpx.Texts, &mcp.Tool{
		Name:  "search_rulesets",
		Title: "Search rulesets by name",
		Description: "Search for rulesets by name pattern using glob syntax ('*' any sequence, '?' one character, matched against the full name). " +
			"Returns metadata without markdown, oldest first; '*' lists everything." + pageDescription,
		InputSchema: pagedSchema[searchIn](),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(false)},
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in searchIn) (page, error) {
		if err := rulesets.CheckLimit(deref(in.Limit)); err != nil {
			return page{}, mcpx.InvalidParams(err.Error())
		}
		res, err := h.lib.SearchPage(ctx, in.Pattern, deref(in.Cursor), deref(in.Limit))
		if err != nil {
			return page{}, pageError("failed to search rulesets", err)
		}
		return page{res, rulesets.FormatSearchPage(in.Pattern, res)}, nil
	})
}
