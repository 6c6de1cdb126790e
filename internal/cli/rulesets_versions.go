package cli

import (
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/sudocode/sudocode/internal/rulesets"
)

// versionArg reads a version number argument.
func versionArg(s string) (int, error) {
	v, err := strconv.Atoi(s)
	if err != nil || v < 1 {
		return 0, usageError{fmt.Errorf("invalid version %q: a version number of 1 or more, from sudocode rulesets history", s)}
	}
	return v, nil
}

func newRulesetsDiffCmd(o *rulesetsOptions, stdio IO) *cobra.Command {
	return &cobra.Command{
		Use:   "diff NAME FROM [TO]",
		Short: "Show the unified diff between two versions of a ruleset (TO left out: the ruleset as it is now)",
		Args: func(cmd *cobra.Command, args []string) error {
			if err := cobra.RangeArgs(2, 3)(cmd, args); err != nil {
				return usageError{err}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			from, err := versionArg(args[1])
			if err != nil {
				return err
			}
			to := 0
			if len(args) == 3 {
				if to, err = versionArg(args[2]); err != nil {
					return err
				}
			}
			return o.withLibrary(cmd, func(lib rulesets.Library) error {
				d, err := lib.Diff(cmd.Context(), args[0], from, to)
				if err != nil {
					return err
				}
				text := d
				if d == "" {
					text = fmt.Sprintf("No differences in ruleset '%s' between the two versions\n", args[0])
				}
				return o.print(stdio.Out, map[string]any{"name": args[0], "from": from, "to": to, "diff": d}, text)
			})
		},
	}
}

func newRulesetsRestoreCmd(o *rulesetsOptions, stdio IO) *cobra.Command {
	return &cobra.Command{
		Use:   "restore NAME VERSION",
		Short: "Make a ruleset what a past version was, recorded as a new change by you (a deleted one comes back)",
		Args:  exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			v, err := versionArg(args[1])
			if err != nil {
				return err
			}
			return o.withLibrary(cmd, func(lib rulesets.Library) error {
				created, err := lib.Restore(cmd.Context(), args[0], v)
				if err != nil {
					return err
				}
				return o.print(stdio.Out, map[string]any{"name": args[0], "version": v, "created": created},
					fmt.Sprintf("Successfully restored ruleset '%s' to version %d\n", args[0], v))
			})
		},
	}
}
