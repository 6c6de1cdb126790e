package cli

import (
	"context"
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

// rulesetsDiffOptions are the arguments of "sudocode rulesets diff"; to
// is "" for the ruleset as it is now.
type rulesetsDiffOptions struct {
	*rulesetsOptions
	name, from, to string
}

func newRulesetsDiffCmd(ro *rulesetsOptions) *cobra.Command {
	o := &rulesetsDiffOptions{rulesetsOptions: ro}
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
			o.name, o.from = args[0], args[1]
			if len(args) == 3 {
				o.to = args[2]
			}
			return runRulesetsDiff(cmd.Context(), o)
		},
	}
}

func runRulesetsDiff(ctx context.Context, o *rulesetsDiffOptions) error {
	from, err := versionArg(o.from)
	if err != nil {
		return err
	}
	to := 0
	if o.to != "" {
		if to, err = versionArg(o.to); err != nil {
			return err
		}
	}
	return o.withLibrary(ctx, o.name, func(lib rulesets.Library) error {
		d, err := lib.Diff(ctx, o.name, from, to)
		if err != nil {
			return err
		}
		text := d
		if d == "" {
			text = fmt.Sprintf("No differences in ruleset '%s' between the two versions\n", o.name)
		}
		return o.print(map[string]any{"name": o.name, "from": from, "to": to, "diff": d}, text)
	})
}

// rulesetsRestoreOptions are the arguments of "sudocode rulesets restore".
type rulesetsRestoreOptions struct {
	*rulesetsOptions
	name, version string
}

func newRulesetsRestoreCmd(ro *rulesetsOptions) *cobra.Command {
	o := &rulesetsRestoreOptions{rulesetsOptions: ro}
	return &cobra.Command{
		Use:   "restore NAME VERSION",
		Short: "Make a ruleset what a past version was, recorded as a new change by you (a deleted one comes back)",
		Args:  exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.name, o.version = args[0], args[1]
			return runRulesetsRestore(cmd.Context(), o)
		},
	}
}

func runRulesetsRestore(ctx context.Context, o *rulesetsRestoreOptions) error {
	v, err := versionArg(o.version)
	if err != nil {
		return err
	}
	return o.withLibrary(ctx, o.name, func(lib rulesets.Library) error {
		created, err := lib.Restore(ctx, o.name, v)
		if err != nil {
			return err
		}
		return o.print(map[string]any{"name": o.name, "version": v, "created": created},
			fmt.Sprintf("Successfully restored ruleset '%s' to version %d\n", o.name, v))
	})
}
