package mcptracker

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/mcpx"
	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

type searchIn struct {
	Query      string  `json:"query" jsonschema:"Words to find; every word must appear (case-insensitive)"`
	ShowIssues *bool   `json:"show_issues,omitempty" jsonschema:"Search issues"`
	ShowSpecs  *bool   `json:"show_specs,omitempty" jsonschema:"Search specs (titles, descriptions and markdown content)"`
	Limit      *int    `json:"limit,omitempty" jsonschema:"Max results"`
	Cursor     *string `json:"cursor,omitempty" jsonschema:"next_cursor of a previous result of the same search: continues the results after it"`
}

func (s *server) search() mcpx.Tool {
	return mcpx.NewTool(mcpx.Faults, &mcp.Tool{
		Name:  "search",
		Title: "Search issues and specs",
		Description: "Full-text search over issue titles and descriptions and spec titles, descriptions and markdown content. " +
			"Title matches first, then priority. Returns compact items with kind (issue or spec) and a snippet around the match; " +
			"when truncated, pass next_cursor as cursor (same query) for the next page.",
		InputSchema: mcpx.Schema[searchIn](map[string]any{"show_issues": true, "show_specs": true, "limit": store.DefaultListLimit}, nil),
		Annotations: readOnly,
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in searchIn) (out tracker.SearchResult, err error) {
		o := store.SearchOptions{Query: in.Query, Issues: in.ShowIssues == nil || *in.ShowIssues,
			Specs: in.ShowSpecs == nil || *in.ShowSpecs, Limit: deref(in.Limit), Cursor: deref(in.Cursor)}
		return call(ctx, s, func(r *store.Repo) (tracker.SearchResult, error) {
			res, err := r.Search(ctx, o)
			if err != nil {
				return out, err
			}
			fitList(s, &res, &res.Results, listPage{res.Total, &res.Truncated, &res.Hint, &res.NextCursor, res.Page}, "more words")
			return res, nil
		})
	})
}
