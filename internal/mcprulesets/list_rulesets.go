package mcprulesets

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
	return mcpx.NewTool(mcpx.Texts, &mcp.Tool{
		Name:        "list_rulesets",
		Title:       "List rulesets",
		Description: "List all available rulesets with metadata (name, description, tags, times; no markdown), oldest first." + pageDescription,
		InputSchema: pagedSchema[listIn](),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(false)},
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in listIn) (page, error) {
		if err := rulesets.CheckLimit(deref(in.Limit)); err != nil {
			return page{}, mcpx.InvalidParams(err.Error())
		}
		res, err := h.lib.ListPage(ctx, deref(in.Cursor), deref(in.Limit))
		if err != nil {
			return page{}, pageError("failed to list rulesets", err)
		}
		return page{res, rulesets.FormatListPage(res)}, nil
	})
}

// pageError is an invalid cursor as it is (NewTool answers it as the
// caller's malformed argument), anything else behind the prefix.
func pageError(prefix string, err error) error {
	if cursor.IsInvalid(err) {
		return err
	}
	return mcpx.Prefixed(prefix, err)
}

// page is a list's or search's result: the page as structured content,
// {rulesets, total, nextCursor}, and the specification's text, which ends
// with "Next cursor: …" when more follow.
type page struct {
	rulesets.Result
	text string
}

func (p page) ToolText() string { return p.text }

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
