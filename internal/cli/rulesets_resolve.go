package cli

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/sudocode/sudocode/internal/rulesets"
)

// resolveOptions are the argument and flags of "sudocode rulesets resolve".
type resolveOptions struct {
	*rulesetsOptions
	path, agent string
}

func newRulesetsResolveCmd(rso *rulesetsOptions) *cobra.Command {
	ro := &resolveOptions{rulesetsOptions: rso}
	cmd := &cobra.Command{
		Use:   "resolve [PATH]",
		Short: "Print the rulesets that apply to a file for an agent, in order, with their origin and size (as resolve_rules)",
		Args: func(cmd *cobra.Command, args []string) error {
			if err := cobra.MaximumNArgs(1)(cmd, args); err != nil {
				return usageError{err}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				ro.path = args[0]
			}
			return runRulesetsResolve(cmd.Context(), ro)
		},
	}
	cmd.Flags().StringVar(&ro.agent, "agent", "", "the `AGENT` asking (claude, codex, gemini, opencode, cursor, copilot, windsurf, …; default any)")
	return cmd
}

// runRulesetsResolve resolves a path relative to the repository's root,
// as it is given: it names no file of this machine.
func runRulesetsResolve(ctx context.Context, ro *resolveOptions) error {
	return ro.withLibrary(ctx, "", func(lib rulesets.Library) error {
		var paths []string
		if ro.path != "" {
			paths = []string{ro.path}
		}
		applied, err := lib.Resolve(ctx, paths, ro.agent)
		if err != nil {
			return err
		}
		return ro.print(map[string]any{"path": ro.path, "agent": ro.agent, "rulesets": applied},
			rulesets.FormatResolved(ro.path, ro.agent, applied)+"\n")
	})
}
