package cli

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/sudocode/sudocode/internal/rulesets"
	"github.com/sudocode/sudocode/internal/rulesets/rulefiles"
)

// importOptions are the arguments and flags of "sudocode rulesets import".
type importOptions struct {
	*rulesetsOptions
	paths []string
	force bool
}

func newRulesetsImportCmd(ro *rulesetsOptions) *cobra.Command {
	o := &importOptions{rulesetsOptions: ro}
	cmd := &cobra.Command{
		Use:   "import [PATH...]",
		Short: "Read the agents' rule files of a repository (CLAUDE.md, AGENTS.md, .cursor/rules, …) into the library",
		Long: `Import reads every agent's rule file under each PATH (a repository's root, default
the current directory, or one file): CLAUDE.md, AGENTS.md and GEMINI.md in any
directory (a nested one applies to its directory: globs DIR/**; the root one is
always applied), .cursor/rules/*.mdc (description, globs, alwaysApply),
.github/copilot-instructions.md and .github/instructions/*.instructions.md
(applyTo), .windsurf/rules/*.md (trigger, globs), .cursorrules, .windsurfrules
and .clinerules. Hidden directories are searched too; .git, .hg, .svn, .jj,
node_modules, vendor and .venv are not. Each file written by hand is one ruleset
named after its path (snake_case); a file that export generated gives back each
ruleset it holds.

Globs are stored relative to the repository root: a leading / or ./ goes, and a
directory (src/) means everything in it (src/**). The markdown is the file's text
without a byte order mark, with LF line endings, and without blank lines at its
start and end; the report says when a file's bytes were changed so.

It reports what it created, updated or skipped. A ruleset that exists with other
content is never overwritten without --force.`,
		Example: `  sudocode rulesets import
  sudocode rulesets import ~/src/service --force
  sudocode rulesets import .cursor/rules/react-components.mdc`,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.paths = args
			return runRulesetsImport(cmd.Context(), o)
		},
	}
	cmd.Flags().BoolVar(&o.force, "force", false, "overwrite rulesets whose library content differs from the files")
	return cmd
}

func runRulesetsImport(ctx context.Context, o *importOptions) error {
	paths := o.paths
	if len(paths) == 0 {
		paths = []string{"."}
	}
	return o.withLibrary(ctx, "", func(lib rulesets.Library) error {
		rep, err := rulefiles.Import(ctx, lib, o.stdio.Dir, paths, o.force)
		if err != nil {
			return err
		}
		return o.print(rep, rulefiles.FormatImport(rep)+"\n")
	})
}
