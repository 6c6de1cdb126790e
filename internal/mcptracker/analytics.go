package mcptracker

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/mcpx"
	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

func (s *server) stats() mcpx.Tool {
	return mcpx.NewTool(mcpx.Faults, &mcp.Tool{
		Name:        "stats",
		Title:       "Project statistics",
		Description: "Counts of specs, issues and relationships by status and type, ready and blocked counts, activity over the last 7 days, and what the agent tasks cost (usage: every task's tokens and dollars added up, and the issues that cost the most; absent without tasks).",
		Annotations: readOnly,
	}, func(ctx context.Context, _ *mcp.CallToolRequest, _ noArgs) (out tracker.Stats, err error) {
		return call(ctx, s, func(r *store.Repo) (tracker.Stats, error) {
			st, err := r.Stats(ctx)
			if err == nil && s.opts.ProjectUsage != nil {
				st.Usage, err = s.opts.ProjectUsage(ctx, r.Dir)
			}
			return st, err
		})
	})
}

type statusIn struct {
	Verbose *bool `json:"verbose,omitempty" jsonschema:"Also list the ready and blocked issue ids"`
}

func (s *server) status() mcpx.Tool {
	return mcpx.NewTool(mcpx.Faults, &mcp.Tool{
		Name:        "status",
		Title:       "Project status",
		Description: "A quick summary: totals by status, and how many issues are ready or blocked.",
		InputSchema: mcpx.Schema[statusIn](map[string]any{"verbose": false}, nil),
		Annotations: readOnly,
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in statusIn) (out tracker.Status, err error) {
		return call(ctx, s, func(r *store.Repo) (tracker.Status, error) { return r.Status(ctx, deref(in.Verbose)) })
	})
}

type initIn struct {
	Prefix *string `json:"prefix,omitempty" jsonschema:"ID prefix for specs and issues"`
}

func (s *server) init() mcpx.Tool {
	return mcpx.NewTool(mcpx.Faults, &mcp.Tool{
		Name:        "init",
		Title:       "Initialise sudocode",
		Description: "Create .sudocode/ in the working directory (SUDOCODE_WORKING_DIR) so that the other tools work. Safe to repeat with the same prefix.",
		InputSchema: mcpx.Schema[initIn](map[string]any{"prefix": tracker.DefaultPrefix}, nil),
		Annotations: &mcp.ToolAnnotations{DestructiveHint: new(false), IdempotentHint: true, OpenWorldHint: new(false)},
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in initIn) (out tracker.InitResult, err error) {
		prefix := deref(in.Prefix)
		if prefix == "" {
			prefix = tracker.DefaultPrefix
		}
		return s.tracker.Init(prefix)
	})
}
