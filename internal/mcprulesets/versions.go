package mcprulesets

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/mcpx"
	"github.com/sudocode/sudocode/internal/rulesets"
)

type versionIn struct {
	Name    string `json:"name" jsonschema:"Exact ruleset name" missing:"the exact name of the ruleset"`
	Version int    `json:"version" jsonschema:"A version number from the ruleset's history (ruleset-history://{name})" missing:"a version number of 1 or more, from the ruleset's history"`
}

// versionDoc is get_ruleset_version's result.
type versionDoc struct {
	rulesets.Ruleset
	Version int `json:"version"`
}

func (d versionDoc) ToolText() string { return rulesets.FormatVersion(d.Ruleset, d.Version) }

func (h handlers) getRulesetVersion() mcpx.Tool {
	return mcpx.NewTool(mcpx.Texts, &mcp.Tool{
		Name:        "get_ruleset_version",
		Title:       "Get a past version of a ruleset",
		Description: "Retrieve a ruleset as one of its past changes left it, as get_ruleset prints it with the version in the front matter. Version numbers are in the ruleset's history (ruleset-history://{name}).",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(false)},
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in versionIn) (versionDoc, error) {
		if err := checkVersionIn(in); err != nil {
			return versionDoc{}, err
		}
		r, _, err := h.lib.Version(ctx, in.Name, in.Version)
		if err != nil {
			return versionDoc{}, mcpx.Prefixed("failed to retrieve ruleset version", err)
		}
		return versionDoc{Ruleset: r, Version: in.Version}, nil
	})
}

// checkVersionIn refuses a version before the first, in the
// specification's words for a missing one.
func checkVersionIn(in versionIn) error {
	if in.Version < 1 {
		return mcpx.MissingParam("version", "a version number of 1 or more, from the ruleset's history")
	}
	return nil
}

type diffIn struct {
	Name string `json:"name" jsonschema:"Exact ruleset name" missing:"the exact name of the ruleset"`
	From int    `json:"from" jsonschema:"The older version" missing:"a version number of 1 or more, from the ruleset's history"`
	To   int    `json:"to,omitempty" jsonschema:"The newer version (default: the ruleset as it is now)"`
}

// diffOut is diff_ruleset_versions' result.
type diffOut struct {
	Name string `json:"name"`
	From int    `json:"from"`
	To   int    `json:"to" jsonschema:"0: the ruleset as it is now"`
	Diff string `json:"diff" jsonschema:"Unified diff of the two documents (front matter and markdown); empty when equal"`
}

func (d diffOut) ToolText() string {
	if d.Diff == "" {
		return fmt.Sprintf("No differences in ruleset '%s' between the two versions", d.Name)
	}
	return d.Diff
}

func (h handlers) diffRulesetVersions() mcpx.Tool {
	return mcpx.NewTool(mcpx.Texts, &mcp.Tool{
		Name:        "diff_ruleset_versions",
		Title:       "Diff two versions of a ruleset",
		Description: "The unified diff between two versions of a ruleset (front matter and markdown), or between a version and the ruleset as it is now when to is left out.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(false)},
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in diffIn) (diffOut, error) {
		if err := checkVersionIn(versionIn{Name: in.Name, Version: in.From}); err != nil {
			return diffOut{}, err
		}
		d, err := h.lib.Diff(ctx, in.Name, in.From, in.To)
		if err != nil {
			return diffOut{}, mcpx.Prefixed("failed to diff ruleset versions", err)
		}
		return diffOut{Name: in.Name, From: in.From, To: in.To, Diff: d}, nil
	})
}

// restored is restore_ruleset's result.
type restored struct {
	Name    string `json:"name"`
	Version int    `json:"version" jsonschema:"The version brought back"`
	Created bool   `json:"created" jsonschema:"True when the ruleset had been deleted and is created again"`
}

func (r restored) ToolText() string {
	return fmt.Sprintf("Successfully restored ruleset '%s' to version %d", r.Name, r.Version)
}

func (h handlers) restoreRuleset() mcpx.Tool {
	return mcpx.NewTool(mcpx.Texts, &mcp.Tool{
		Name:        "restore_ruleset",
		Title:       "Restore a past version of a ruleset",
		Description: "Make a ruleset what one of its versions was (content, tags and scope), recorded in its history as a new change by you; a deleted ruleset comes back.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: new(true), IdempotentHint: true, OpenWorldHint: new(false)},
	}, func(ctx context.Context, req *mcp.CallToolRequest, in versionIn) (restored, error) {
		if err := checkVersionIn(in); err != nil {
			return restored{}, err
		}
		created, err := h.libFor(ctx).Restore(ctx, in.Name, in.Version)
		if err != nil {
			return restored{}, mcpx.Prefixed("failed to restore ruleset", err)
		}
		mcpx.Notify(ctx, h.logger, req.Session, "rulesets", "restored ruleset", "name", in.Name, "version", in.Version)
		return restored{Name: in.Name, Version: in.Version, Created: created}, nil
	})
}
