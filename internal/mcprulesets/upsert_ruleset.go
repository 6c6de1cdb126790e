package mcprulesets

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/mcpx"
	"github.com/sudocode/sudocode/internal/rulesets"
)

type upsertIn struct {
	Name        string   `json:"name" jsonschema:"Snake_case ruleset name (e.g., python_style_guide)" missing:"the snake_case name of the ruleset to create or update"`
	Description string   `json:"description,omitempty" jsonschema:"Brief description of the ruleset (required for new rulesets, optional for updates)"`
	Markdown    string   `json:"markdown,omitempty" jsonschema:"Ruleset content in markdown format (required for new rulesets, optional for updates)"`
	Tags        []string `json:"tags,omitempty" jsonschema:"Categorization tags (default: empty array for new rulesets); replaces the current tags when given"`
}

// upserted is upsert_ruleset's result.
type upserted struct {
	Name    string `json:"name" jsonschema:"The ruleset's name"`
	Created bool   `json:"created" jsonschema:"True when the ruleset is new, false when an existing one was updated"`
}

func (u upserted) ToolText() string { return "Successfully upserted ruleset '" + u.Name + "'" }

func (h handlers) upsertRuleset() mcpx.Tool {
	return mcpx.NewTool(mcpx.Texts, &mcp.Tool{
		Name:  "upsert_ruleset",
		Title: "Create or update a ruleset",
		Description: "Create a new ruleset or update an existing one. " +
			"For a new name, name, description and markdown are all required. " +
			"For an existing name, only the fields you pass change; created_at is kept and last_modified is bumped.",
		Annotations: &mcp.ToolAnnotations{
			ReadOnlyHint:    false,
			DestructiveHint: new(true), // an update replaces the fields it names
			IdempotentHint:  true,
			OpenWorldHint:   new(false),
		},
	}, func(ctx context.Context, req *mcp.CallToolRequest, in upsertIn) (upserted, error) {
		p := rulesets.Patch{Name: in.Name, Tags: in.Tags, SetTags: in.Tags != nil}
		if in.Description != "" {
			p.Description = &in.Description
		}
		if in.Markdown != "" {
			p.Markdown = &in.Markdown
		}
		created, err := h.libFor(ctx).Upsert(ctx, p)
		if err != nil {
			return upserted{}, mcpx.Prefixed("failed to upsert ruleset", err)
		}
		event := "updated ruleset"
		if created {
			event = "created ruleset"
		}
		mcpx.Notify(ctx, h.logger, req.Session, "rulesets", event, "name", in.Name)
		return upserted{Name: in.Name, Created: created}, nil
	})
}
