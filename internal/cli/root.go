package cli

import (
	"github.com/spf13/cobra"
)

func newRootCmd(stdio IO) *cobra.Command {
	root := &cobra.Command{
		Use:   "sudocode",
		Short: "A workbench of MCP servers for AI coding agents",
		Long: `sudocode gives AI coding agents MCP servers to plan, share rules, act and delegate.

Servers:
  sudocode mcp rulesets   a shared library of AI-editor rulesets (stdio, or --http ADDR)

Manage the ruleset library from the shell with "sudocode rulesets".`,
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(newMCPCmd(stdio), newRulesetsCmd(stdio))
	return root
}

// exactArgs is cobra.ExactArgs with a usage error.
func exactArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := cobra.ExactArgs(n)(cmd, args); err != nil {
			return usageError{err}
		}
		return nil
	}
}
