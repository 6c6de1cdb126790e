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

func newStatsCmd(tc trackerCmd) *cobra.Command {
	return &cobra.Command{
		Use:   "stats",
		Short: "Counts of specs, issues and relationships, activity over the last 7 days, and what agent tasks cost",
		Long: `Counts of specs, issues and relationships, and activity over the last 7 days.
When the repository's agent tasks exist, also what they cost: every task's tokens and
dollars added up, and the issues whose tasks cost the most ("usage" with --json).`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error { return runStats(cmd.Context(), tc) },
	}
}

func runStats(ctx context.Context, tc trackerCmd) error {
	return runOn(ctx, tc, func(r *store.Repo) (tracker.Stats, error) {
		s, err := r.Stats(ctx)
		if err == nil {
			s.Usage, err = projectUsage(ctx, r.Dir)
		}
		return s, err
	},
		func(w io.Writer, s tracker.Stats) {
			fmt.Fprintf(w, "Specs\t%d\t%s\tready %d\n", s.Specs.Total, counts(s.Specs.ByStatus, tracker.SpecStatuses), s.Specs.Ready)
			fmt.Fprintf(w, "Issues\t%d\t%s\tready %d, blocked %d\n", s.Issues.Total, issueCounts(s.Issues.ByStatus), s.Issues.Ready, s.Issues.Blocked)
			fmt.Fprintf(w, "Relationships\t%d\t%s\n", s.Relationships.Total, counts(s.Relationships.ByType, tracker.RelTypes))
			a := s.RecentActivity
			fmt.Fprintf(w, "Last 7 days\t\tissues created %d, updated %d, closed %d; specs updated %d\n", a.IssuesCreated, a.IssuesUpdated, a.IssuesClosed, a.SpecsUpdated)
			projectUsageText(w, s.Usage)
		})
}

type statusOptions struct {
	trackerCmd
	verbose bool
}

func newStatusCmd(tc trackerCmd) *cobra.Command {
	o := &statusOptions{trackerCmd: tc}
	cmd := &cobra.Command{
		Use:   "status",
		Short: "A short summary: totals, and how much work is ready or blocked",
		Args:  exactArgs(0),
		RunE:  func(cmd *cobra.Command, _ []string) error { return runStatus(cmd.Context(), o) },
	}
	cmd.Flags().BoolVarP(&o.verbose, "verbose", "v", false, "list the ready and blocked issue ids")
	return cmd
}

func runStatus(ctx context.Context, o *statusOptions) error {
	return runOn(ctx, o.trackerCmd, func(r *store.Repo) (tracker.Status, error) { return r.Status(ctx, o.verbose) },
		func(w io.Writer, s tracker.Status) {
			fmt.Fprintf(w, "Specs\t%d\t%s\n", s.Specs.Total, counts(s.Specs.ByStatus, tracker.SpecStatuses))
			fmt.Fprintf(w, "Issues\t%d\t%s\n", s.Issues.Total, issueCounts(s.Issues.ByStatus))
			fmt.Fprintf(w, "Ready\t%d\t%s\n", s.Issues.Ready, strings.Join(s.Issues.ReadyIDs, " "))
			fmt.Fprintf(w, "Blocked\t%d\t%s\n", s.Issues.Blocked, strings.Join(s.Issues.BlockedIDs, " "))
		})
}

// counts is "a 1, b 2" in the domain's order of the values.
func counts[T ~string](m map[string]int, order []T) string {
	parts := make([]string, len(order))
	for i, v := range order {
		parts[i] = fmt.Sprintf("%s %d", v, m[string(v)])
	}
	return strings.Join(parts, ", ")
}

// issueCounts is the issues by status, the status blocked said as "marked
// blocked": a bare "blocked" is always the count of the rule, what
// `sudocode blocked` lists (unfinished, and waiting on unfinished work or
// marked blocked).
func issueCounts(m map[string]int) string {
	var rest []tracker.IssueStatus
	for _, st := range tracker.IssueStatuses {
		if st != tracker.IssueBlocked {
			rest = append(rest, st)
		}
	}
	return fmt.Sprintf("%s, marked blocked %d", counts(m, rest), m[string(tracker.IssueBlocked)])
}
