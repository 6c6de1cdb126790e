package mcprulesets

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/mcpx"
	"github.com/sudocode/sudocode/internal/rulesets/rulefiles"
)

type importIn struct {
	Path  string `json:"path" jsonschema:"A repository's root directory, or one rule file, on the server's machine, under a directory the server imports from (its working directory unless configured); relative to the first of them" missing:"a repository's root directory or one rule file"`
	Force bool   `json:"force,omitempty" jsonschema:"Overwrite rulesets whose library content differs from the files (default false: they are skipped)"`
}

// importReport is import_rules' result.
type importReport struct {
	rulefiles.ImportReport
}

func (r importReport) ToolText() string { return rulefiles.FormatImport(r.ImportReport) }

func (h handlers) importRules() mcpx.Tool {
	return mcpx.NewTool(mcpx.Texts, &mcp.Tool{
		Name:  "import_rules",
		Title: "Import agents' rule files",
		Description: "Read every agent's rule file of a repository into the library: CLAUDE.md, AGENTS.md, GEMINI.md (nested ones scoped to their directory), " +
			".cursor/rules/*.mdc, .github/copilot-instructions.md, .github/instructions/*.instructions.md, .windsurf/rules/*.md, .cursorrules, .windsurfrules, .clinerules. " +
			"Front matter (description, globs, alwaysApply, applyTo, trigger) becomes the ruleset's description and scope; names follow the file (snake_case). " +
			"Reports what was created, updated or skipped; an existing ruleset with other content is skipped unless force. " +
			"Only paths under the directories the server imports from are read (its working directory unless configured), never through a link leading out of them.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: new(true), IdempotentHint: true, OpenWorldHint: new(false)},
	}, func(ctx context.Context, req *mcp.CallToolRequest, in importIn) (importReport, error) {
		rep, err := h.roots.importRules(ctx, h.libFor(ctx), in.Path, in.Force)
		if err != nil {
			return importReport{}, mcpx.Prefixed("failed to import rules", err)
		}
		if rep.Created+rep.Updated > 0 {
			mcpx.Notify(ctx, h.logger, req.Session, "rulesets", "imported rulesets", "created", rep.Created, "updated", rep.Updated)
		}
		return importReport{rep}, nil
	})
}
