package cli

import (
	"github.com/spf13/cobra"

	"github.com/sudocode/sudocode/internal/rulesets"
)

// resolveOptions are the flags of "sudocode rulesets resolve".
type resolveOptions struct {
	agent string
}

func newRulesetsResolveCmd(o *rulesetsOptions, stdio IO) *cobra.Command {
	var ro resolveOptions
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
			return runRulesetsResolve(cmd, o, ro, args, stdio)
		},
	}
	cmd.Flags().StringVar(&ro.agent, "agent", "", "the `AGENT` asking (claude, codex, gemini, opencode, cursor, copilot, windsurf, …; default any)")
	return cmd
}

func runRulesetsResolve(cmd *cobra.Command, o *rulesetsOptions, ro resolveOptions, args []string, stdio IO) error {
	path := ""
	if len(args) == 1 {
		path = args[0]
	}
	return o.withLibrary(cmd, func(lib rulesets.Library) error {
		var paths []string
		if path != "" {
			paths = []string{path}
		}
		applied, err := lib.Resolve(cmd.Context(), paths, ro.agent)
		if err != nil {
			return err
		}
		return o.print(stdio.Out, map[string]any{"path": path, "agent": ro.agent, "rulesets": applied},
			rulesets.FormatResolved(path, ro.agent, applied)+"\n")
	})
}
