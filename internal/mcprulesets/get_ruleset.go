package mcprulesets

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/mcpx"
	"github.com/sudocode/sudocode/internal/rulesets"
)

type nameIn struct {
	Name string `json:"name" jsonschema:"Exact ruleset name" missing:"the exact name of the ruleset to retrieve"`
}

// document is get_ruleset's result: the ruleset as the specification's
// data model, and as its text the front matter and markdown.
type document struct {
	rulesets.Ruleset
}

func (d document) ToolText() string { return rulesets.FormatDocument(d.Ruleset) }

func (h handlers) getRuleset() mcpx.Tool {
	return mcpx.NewTool(mcpx.Texts, &mcp.Tool{
		Name:        "get_ruleset",
		Title:       "Get a ruleset",
		Description: "Retrieve a ruleset by its exact name: front matter (description, tags, times) followed by the markdown rules.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(false)},
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in nameIn) (document, error) {
		r, err := h.lib.Get(ctx, in.Name)
		if err != nil {
			return document{}, mcpx.Prefixed("failed to retrieve ruleset", err)
		}
		return document{r}, nil
	})
}
