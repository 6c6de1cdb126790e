package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

type searchOptions struct {
	trackerCmd
	opts store.SearchOptions
}

func newSearchCmd(tc trackerCmd) *cobra.Command {
	o := &searchOptions{trackerCmd: tc}
	cmd := &cobra.Command{
		Use:   "search WORDS...",
		Short: "Find issues and specs whose title, description or spec content hold every word",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError{fmt.Errorf("give one or more words to search for")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			o.opts.Query = strings.Join(args, " ")
			return runSearch(cmd.Context(), o)
		},
	}
	cmd.Flags().BoolVar(&o.opts.Issues, "issues", false, "search issues (default: issues and specs)")
	cmd.Flags().BoolVar(&o.opts.Specs, "specs", false, "search specs (default: issues and specs)")
	cmd.Flags().IntVarP(&o.opts.Limit, "limit", "n", store.DefaultListLimit, "most results")
	cmd.Flags().StringVar(&o.opts.Cursor, "cursor", "", cursorHelp)
	return cmd
}

func runSearch(ctx context.Context, o *searchOptions) error {
	so := o.opts
	if !so.Issues && !so.Specs {
		so.Issues, so.Specs = true, true
	}
	return runOn(ctx, o.trackerCmd, func(r *store.Repo) (tracker.SearchResult, error) { return r.Search(ctx, so) },
		func(w io.Writer, res tracker.SearchResult) {
			if len(res.Results) == 0 {
				fmt.Fprintln(w, "(no match)")
			}
			for _, h := range res.Results {
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", h.ID, h.Kind, h.Title, h.Snippet)
			}
			footer(w, res.Total, len(res.Results), res.Hint, res.NextCursor)
		})
}
