package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

func newInitCmd(tc trackerCmd) *cobra.Command {
	var prefix string
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Create .sudocode/ in the working directory (SUDOCODE_WORKING_DIR)",
		Long: `Create .sudocode/ in the working directory (or SUDOCODE_WORKING_DIR): config.json,
empty issues.jsonl, specs.jsonl and feedback.jsonl, a specs/ folder for spec bodies,
a .gitignore for the cache and a .gitattributes that routes the JSONL files through
sudocode's merge driver (registered in .git/config when inside a git repository).
Commit .sudocode/ with your code.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir := os.Getenv("SUDOCODE_WORKING_DIR")
			if dir == "" {
				dir = "."
			}
			_, statErr := os.Stat(filepath.Join(dir, store.DirName, "config.json"))
			res, err := store.Init(dir, prefix)
			if err != nil {
				return err
			}
			return tc.print(res, func(w io.Writer) {
				if statErr == nil {
					fmt.Fprintf(w, "Already initialised: %s (prefix %s)\n", res.Path, res.Prefix)
					return
				}
				fmt.Fprintf(w, "Initialised %s (prefix %s)\n", res.Path, res.Prefix)
			})
		},
	}
	cmd.Flags().StringVar(&prefix, "prefix", tracker.DefaultPrefix, "id prefix for issues and specs")
	return cmd
}

func newReadyCmd(tc trackerCmd) *cobra.Command {
	var o store.ReadyOptions
	var specs, issues bool
	cmd := &cobra.Command{
		Use:   "ready",
		Short: "Work ready to start: open, nothing unfinished blocking it (directly or through a parent)",
		Long:  "List open issues (and, with --specs, draft or review specs) that nothing unfinished blocks, directly or through a parent: highest priority (0) first, then oldest.\n\n" + relHelp,
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.Priority = intFlag(cmd, "priority")
			o.Specs, o.Issues = specs, issues || !specs
			return tc.withRepo(cmd.Context(), func(r *store.Repo) error {
				res, err := r.Ready(cmd.Context(), o)
				if err != nil {
					return err
				}
				return tc.print(res, func(w io.Writer) {
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
			})
		},
	}
	f := cmd.Flags()
	f.IntVarP(&o.Limit, "limit", "n", store.DefaultReadyLimit, "most items per list")
	f.IntP("priority", "p", 0, "only this priority, 0 (highest) to 4")
	f.StringVarP(&o.Assignee, "assignee", "a", "", "only issues assigned to this person")
	f.BoolVar(&specs, "specs", false, "include ready specs")
	f.BoolVar(&issues, "issues", false, "include ready issues (the default unless --specs alone is given)")
	f.StringVar(&o.Cursor, "cursor", "", cursorHelp)
	return cmd
}

func newBlockedCmd(tc trackerCmd) *cobra.Command {
	var o store.BlockedOptions
	var specs, issues bool
	cmd := &cobra.Command{
		Use:   "blocked",
		Short: "Unfinished work that something blocks, with what blocks each item",
		Long:  "List unfinished issues (and, with --specs, specs) that something unfinished blocks, each with its blockers; an inherited blocker names the ancestor it comes through (via).\n\n" + relHelp,
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.Specs, o.Issues = specs, issues || !specs
			return tc.withRepo(cmd.Context(), func(r *store.Repo) error {
				res, err := r.Blocked(cmd.Context(), o)
				if err != nil {
					return err
				}
				return tc.print(res, func(w io.Writer) {
					for _, list := range []*[]tracker.BlockedItem{res.Issues, res.Specs} {
						if list == nil {
							continue
						}
						if len(*list) == 0 {
							fmt.Fprintln(w, "(nothing blocked)")
						}
						for _, b := range *list {
							fmt.Fprintf(w, "%s\t%s\t[%s]\n", b.ID, b.Title, b.Status)
							for _, by := range b.BlockedBy {
								via := ""
								if by.Via != "" {
									via = " via " + by.Via
								}
								fmt.Fprintf(w, "  blocked by\t%s %s [%s]%s\n", by.ID, by.Title, by.Status, via)
							}
						}
					}
					nextLine(w, res.NextCursor)
				})
			})
		},
	}
	f := cmd.Flags()
	f.BoolVar(&specs, "specs", false, "include blocked specs")
	f.BoolVar(&issues, "issues", false, "include blocked issues (the default unless --specs alone is given)")
	f.IntVarP(&o.Limit, "limit", "n", store.DefaultListLimit, "most items per list")
	f.StringVar(&o.Cursor, "cursor", "", cursorHelp)
	return cmd
}

func newStatsCmd(tc trackerCmd) *cobra.Command {
	return &cobra.Command{
		Use:   "stats",
		Short: "Counts of specs, issues and relationships, and activity over the last 7 days",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return tc.withRepo(cmd.Context(), func(r *store.Repo) error {
				s, err := r.Stats(cmd.Context())
				if err != nil {
					return err
				}
				return tc.print(s, func(w io.Writer) {
					fmt.Fprintf(w, "Specs\t%d\t%s\tready %d\n", s.Specs.Total, counts(s.Specs.ByStatus, tracker.SpecStatuses), s.Specs.Ready)
					fmt.Fprintf(w, "Issues\t%d\t%s\tready %d, blocked %d\n", s.Issues.Total, issueCounts(s.Issues.ByStatus), s.Issues.Ready, s.Issues.Blocked)
					fmt.Fprintf(w, "Relationships\t%d\t%s\n", s.Relationships.Total, counts(s.Relationships.ByType, tracker.RelTypes))
					a := s.RecentActivity
					fmt.Fprintf(w, "Last 7 days\t\tissues created %d, updated %d, closed %d; specs updated %d\n", a.IssuesCreated, a.IssuesUpdated, a.IssuesClosed, a.SpecsUpdated)
				})
			})
		},
	}
}

func newStatusCmd(tc trackerCmd) *cobra.Command {
	var verbose bool
	cmd := &cobra.Command{
		Use:   "status",
		Short: "A short summary: totals, and how much work is ready or blocked",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return tc.withRepo(cmd.Context(), func(r *store.Repo) error {
				s, err := r.Status(cmd.Context(), verbose)
				if err != nil {
					return err
				}
				return tc.print(s, func(w io.Writer) {
					fmt.Fprintf(w, "Specs\t%d\t%s\n", s.Specs.Total, counts(s.Specs.ByStatus, tracker.SpecStatuses))
					fmt.Fprintf(w, "Issues\t%d\t%s\n", s.Issues.Total, issueCounts(s.Issues.ByStatus))
					fmt.Fprintf(w, "Ready\t%d\t%s\n", s.Issues.Ready, strings.Join(s.Issues.ReadyIDs, " "))
					fmt.Fprintf(w, "Blocked\t%d\t%s\n", s.Issues.Blocked, strings.Join(s.Issues.BlockedIDs, " "))
				})
			})
		},
	}
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "list the ready and blocked issue ids")
	return cmd
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
