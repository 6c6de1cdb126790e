package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

// kindFlags are --issues and --specs of ready and blocked: issues unless
// --specs alone is given.
type kindFlags struct{ issues, specs bool }

func (k *kindFlags) register(cmd *cobra.Command, verb string) {
	cmd.Flags().BoolVar(&k.specs, "specs", false, "include "+verb+" specs")
	cmd.Flags().BoolVar(&k.issues, "issues", false, "include "+verb+" issues (the default unless --specs alone is given)")
}

func (k kindFlags) chosen() (issues, specs bool) { return k.issues || !k.specs, k.specs }

type readyOptions struct {
	trackerCmd
	opts  store.ReadyOptions
	kinds kindFlags
}

func newReadyCmd(tc trackerCmd) *cobra.Command {
	o := &readyOptions{trackerCmd: tc}
	cmd := &cobra.Command{
		Use:   "ready",
		Short: "Work ready to start: open, nothing unfinished blocking it (directly or through a parent)",
		Long:  "List open issues (and, with --specs, draft or review specs) that nothing unfinished blocks, directly or through a parent: highest priority (0) first, then oldest.\n\n" + relHelp,
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.opts.Priority = intFlag(cmd, "priority")
			return runReady(cmd.Context(), o)
		},
	}
	f := cmd.Flags()
	limitFlag(f, &o.opts.Limit, store.DefaultReadyLimit, "most items per list")
	f.IntP("priority", "p", 0, "only this priority, 0 (highest) to 4")
	f.StringVarP(&o.opts.Assignee, "assignee", "a", "", "only issues assigned to this person")
	o.kinds.register(cmd, "ready")
	f.StringVar(&o.opts.Cursor, "cursor", "", cursorHelp)
	return cmd
}

func runReady(ctx context.Context, o *readyOptions) error {
	ro := o.opts
	ro.Issues, ro.Specs = o.kinds.chosen()
	return runOn(ctx, o.trackerCmd, func(r *store.Repo) (tracker.ReadyResult, error) { return r.Ready(ctx, ro) },
		func(w io.Writer, res tracker.ReadyResult) {
			if res.Issues != nil {
				fmt.Fprintln(w, "Ready issues:")
				compactTable(w, *res.Issues)
			}
			if res.Specs != nil {
				fmt.Fprintln(w, "Ready specs:")
				compactTable(w, *res.Specs)
			}
			nextLine(w, res.NextCursor)
		})
}

type blockedOptions struct {
	trackerCmd
	opts  store.BlockedOptions
	kinds kindFlags
}

func newBlockedCmd(tc trackerCmd) *cobra.Command {
	o := &blockedOptions{trackerCmd: tc}
	cmd := &cobra.Command{
		Use:   "blocked",
		Short: "Unfinished work that waits for something, with what each item waits for",
		Long:  "List unfinished issues (and, with --specs, specs) that wait for unfinished work, each with what it waits for; a blocker inherited from a parent names the ancestor it comes through (via). An issue marked blocked is listed too.\n\n" + relHelp,
		Args:  exactArgs(0),
		RunE:  func(cmd *cobra.Command, _ []string) error { return runBlocked(cmd.Context(), o) },
	}
	o.kinds.register(cmd, "blocked")
	limitFlag(cmd.Flags(), &o.opts.Limit, store.DefaultListLimit, "most items per list")
	cmd.Flags().StringVar(&o.opts.Cursor, "cursor", "", cursorHelp)
	return cmd
}

func runBlocked(ctx context.Context, o *blockedOptions) error {
	bo := o.opts
	bo.Issues, bo.Specs = o.kinds.chosen()
	return runOn(ctx, o.trackerCmd, func(r *store.Repo) (tracker.BlockedResult, error) { return r.Blocked(ctx, bo) },
		func(w io.Writer, res tracker.BlockedResult) {
			for _, list := range []*[]tracker.BlockedItem{res.Issues, res.Specs} {
				if list != nil {
					blockedLines(w, *list)
				}
			}
			nextLine(w, res.NextCursor)
		})
}

func blockedLines(w io.Writer, items []tracker.BlockedItem) {
	if len(items) == 0 {
		fmt.Fprintln(w, "(nothing blocked)")
	}
	for _, b := range items {
		fmt.Fprintf(w, "%s\t%s\t[%s]\n", b.ID, b.Title, b.Status)
		for _, by := range b.BlockedBy {
			via := ""
			if by.Via != nil {
				via = " (through its ancestor " + *by.Via + ")"
			}
			fmt.Fprintf(w, "  waits for\t%s %s [%s]%s\n", by.ID, by.Title, by.Status, via)
		}
	}
}
