package rulesets

import (
	"context"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/cursor"
	"github.com/sudocode/sudocode/internal/mcpx"
	"github.com/sudocode/sudocode/internal/rulesets"
)

// listIn holds the paging parameters search_rulesets has too (written out
// in both: an embedded struct's name would show in decoding errors).
type listIn struct {
	Cursor *string `json:"cursor,omitempty" jsonschema:"The cursor after 'Next cursor:' at the end of a previous page of the same list: continues it"`
	Limit  *int    `json:"limit,omitempty" jsonschema:"Most rulesets per page, 1 to 1000"`
}

// pagedSchema is In's input schema with the page size's default and bounds.
func pagedSchema[In any]() *jsonschema.Schema {
	s := mcpx.Schema[In](map[string]any{"limit": rulesets.DefaultPageSize}, nil)
	lo, hi := 1.0, float64(rulesets.MaxPageSize)
	s.Properties["limit"].Minimum, s.Properties["limit"].Maximum = &lo, &hi
	return s
}

// pageDescription is what the list tools say about their pages.
const pageDescription = " At most limit rulesets (default 100) per call, with the number found in all; when more follow, " +
	"the text ends with a line 'Next cursor: …': pass that cursor to get the next page."

func (h handlers) listRulesets() mcpx.Tool {
	return mcpx.NewTool(&mcp.Tool{
		Name:        "list_rulesets",
		Title:       "List rulesets",
		Description: "List all available rulesets with metadata (name, description, tags, times; no markdown), oldest first." + pageDescription,
		InputSchema: pagedSchema[listIn](),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(false)},
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in listIn) (*mcp.CallToolResult, error) {
		if err := rulesets.CheckLimit(deref(in.Limit)); err != nil {
			return nil, mcpx.InvalidParams(err.Error())
		}
		res, err := h.lib.ListPage(ctx, deref(in.Cursor), deref(in.Limit))
		if err != nil {
			return pageError("failed to list rulesets", err)
		}
		return pageResult(rulesets.FormatListPage(res), res, in.Cursor != nil), nil
	})
}

// pageError is an invalid cursor as the JSON-RPC invalid-params error
// (the caller's malformed argument), anything else as the tool error
// prefix names.
func pageError(prefix string, err error) (*mcp.CallToolResult, error) {
	if cursor.IsInvalid(err) {
		return nil, mcpx.InvalidParams(err.Error())
	}
	return mcpx.ToolError(prefix, err), nil
}

// pageResult is a page's text; when paging is in play (a cursor was given
// or more follow), the page as structured content too, with its
// nextCursor. A list that fits one page, asked for without a cursor, is
// the specification's result exactly.
func pageResult(text string, res rulesets.Result, withCursor bool) *mcp.CallToolResult {
	r := mcpx.Text(text)
	if withCursor || res.NextCursor != "" {
		r.StructuredContent = res
	}
	return r
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
