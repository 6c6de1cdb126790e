package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/sudocode/sudocode/internal/rulesets"
)

func newRulesetsListCmd(o *rulesetsOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List every ruleset (no markdown), oldest first",
		Args:  exactArgs(0),
		RunE:  func(cmd *cobra.Command, _ []string) error { return runRulesetsList(cmd.Context(), o) },
	}
}

func runRulesetsList(ctx context.Context, o *rulesetsOptions) error {
	return o.withLibrary(ctx, "", func(lib rulesets.Library) error {
		items, err := lib.List(ctx)
		if err != nil {
			return err
		}
		return o.print(items, forTerminal(o.stdio.Out, rulesets.FormatList(items), items)+"\n")
	})
}

// rulesetsSearchOptions are the arguments of "sudocode rulesets search".
type rulesetsSearchOptions struct {
	*rulesetsOptions
	pattern string
}

func newRulesetsSearchCmd(ro *rulesetsOptions) *cobra.Command {
	o := &rulesetsSearchOptions{rulesetsOptions: ro}
	return &cobra.Command{
		Use:   "search PATTERN",
		Short: "List the rulesets whose names match a glob ('*' any sequence, '?' one character)",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.pattern = args[0]
			return runRulesetsSearch(cmd.Context(), o)
		},
	}
}

func runRulesetsSearch(ctx context.Context, o *rulesetsSearchOptions) error {
	return o.withLibrary(ctx, "", func(lib rulesets.Library) error {
		items, err := lib.Search(ctx, o.pattern)
		if err != nil {
			return err
		}
		return o.print(items, forTerminal(o.stdio.Out, rulesets.FormatSearch(o.pattern, items), items)+"\n")
	})
}

// rulesetsGetOptions are the arguments and flags of "sudocode rulesets get".
type rulesetsGetOptions struct {
	*rulesetsOptions
	name, version string
}

func newRulesetsGetCmd(ro *rulesetsOptions) *cobra.Command {
	o := &rulesetsGetOptions{rulesetsOptions: ro}
	cmd := &cobra.Command{
		Use:   "get NAME",
		Short: "Print a ruleset: front matter, then its markdown (--version N: as a past change left it)",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.name = args[0]
			return runRulesetsGet(cmd.Context(), o)
		},
	}
	cmd.Flags().StringVar(&o.version, "version", "", "print version `N` (see history)")
	return cmd
}

func runRulesetsGet(ctx context.Context, o *rulesetsGetOptions) error {
	v := 0
	if o.version != "" {
		var err error
		if v, err = versionArg(o.version); err != nil {
			return err
		}
	}
	return o.withLibrary(ctx, o.name, func(lib rulesets.Library) error {
		if v > 0 {
			r, _, err := lib.Version(ctx, o.name, v)
			if err != nil {
				return err
			}
			return o.print(map[string]any{"ruleset": r, "version": v}, rulesets.FormatVersion(r, v)+"\n")
		}
		r, err := lib.Get(ctx, o.name)
		if err != nil {
			return err
		}
		return o.print(r, rulesets.FormatDocument(r)+"\n")
	})
}

// rulesetsHistoryOptions are the arguments and flags of "sudocode
// rulesets history".
type rulesetsHistoryOptions struct {
	*rulesetsOptions
	name  string
	limit int
}

func newRulesetsHistoryCmd(ro *rulesetsOptions) *cobra.Command {
	o := &rulesetsHistoryOptions{rulesetsOptions: ro}
	cmd := &cobra.Command{
		Use:   "history NAME",
		Short: "Who changed a ruleset, when and which fields, newest first (also of a deleted one)",
		Long: `Print a ruleset's history: each create, update and delete, newest first, with
its author (SUDOCODE_ACTOR or $USER from the CLI; through MCP over HTTP with a
token file, the client's name) and the fields it set. The last 100 changes of
each name are kept, and a deleted ruleset's history stays.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.name = args[0]
			return runRulesetsHistory(cmd.Context(), o)
		},
	}
	cmd.Flags().IntVarP(&o.limit, "limit", "n", rulesets.MaxHistory, "show at most `N` changes")
	return cmd
}

func runRulesetsHistory(ctx context.Context, o *rulesetsHistoryOptions) error {
	if o.limit < 1 || o.limit > rulesets.MaxHistory {
		return usageError{fmt.Errorf("--limit must be between 1 and %d, got %d", rulesets.MaxHistory, o.limit)}
	}
	return o.withLibrary(ctx, o.name, func(lib rulesets.Library) error {
		changes, err := lib.History(ctx, o.name, o.limit)
		if err != nil {
			return err
		}
		return o.print(map[string]any{"name": o.name, "changes": changes}, rulesets.FormatHistory(o.name, changes)+"\n")
	})
}
