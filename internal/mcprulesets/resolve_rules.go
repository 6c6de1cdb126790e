package mcprulesets

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/mcpx"
	"github.com/sudocode/sudocode/internal/rulesets"
)

type resolveIn struct {
	Path  string `json:"path,omitempty" jsonschema:"The file about to be edited, relative to the repository root (empty: no particular file)"`
	Agent string `json:"agent,omitempty" jsonschema:"The agent asking: claude, codex, gemini, opencode, cursor, copilot, windsurf, … (empty: any)"`
}

// resolved is resolve_rules' result.
type resolved struct {
	Path     string             `json:"path"`
	Agent    string             `json:"agent"`
	Rulesets []rulesets.Applied `json:"rulesets" jsonschema:"In order: always applied, then attached by a glob (least specific first), then left to the agent's judgement"`
	Tokens   int                `json:"tokens" jsonschema:"The estimated size of them all"`
}

func (r resolved) ToolText() string { return rulesets.FormatResolved(r.Path, r.Agent, r.Rulesets) }

func (h handlers) resolveRules() mcpx.Tool {
	return mcpx.NewTool(mcpx.Texts, &mcp.Tool{
		Name:  "resolve_rules",
		Title: "Rulesets that apply to a file",
		Description: "Ask what applies before editing a file: the rulesets that apply to path for agent, in order " +
			"(always applied first, then those whose globs match, least specific first, then those left to your judgement), " +
			"each with where it came from, its estimated size in tokens, and its markdown.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(false)},
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in resolveIn) (resolved, error) {
		var paths []string
		if in.Path != "" {
			paths = []string{in.Path}
		}
		applied, err := h.lib.Resolve(ctx, paths, in.Agent)
		if err != nil {
			return resolved{}, mcpx.Prefixed("failed to resolve rules", err)
		}
		out := resolved{Path: in.Path, Agent: in.Agent, Rulesets: applied}
		for _, a := range applied {
			out.Tokens += a.Tokens
		}
		return out, nil
	})
}
