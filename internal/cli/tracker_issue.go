package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

func newIssueCmd(tc trackerCmd) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "issue",
		Short: "Create, list, show, update and close issues",
		Args:  groupArgs,
		RunE:  groupHelp,
	}
	cmd.AddCommand(newIssueCreateCmd(tc), newIssueListCmd(tc), newIssueShowCmd(tc), newIssueUpdateCmd(tc), newIssueCloseCmd(tc),
		newIssueCreateBatchCmd(tc), newIssueUpdateBatchCmd(tc))
	return cmd
}

func newIssueCreateCmd(tc trackerCmd) *cobra.Command {
	var in store.IssueInput
	var parent, assignee string
	cmd := &cobra.Command{
		Use:   "create TITLE",
		Short: "Create an issue",
		Example: `  sudocode issue create "Fix login timeout" --type bug --priority 1 --tags auth,web
  sudocode issue create "Write the parser" --parent sudocode-a1b2 --estimate 90`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			in.Title = args[0]
			in.Priority = intFlag(cmd, "priority")
			in.Estimate = intFlag(cmd, "estimate")
			if parent != "" {
				in.Parent = &parent
			}
			if assignee != "" {
				in.Assignee = &assignee
			}
			return tc.withRepo(cmd.Context(), func(r *store.Repo) error {
				issue, err := r.CreateIssue(cmd.Context(), in)
				if err != nil {
					return err
				}
				return tc.print(issue, func(w io.Writer) { fmt.Fprintf(w, "Created issue %s: %s\n", issue.ID, issue.Title) })
			})
		},
	}
	f := cmd.Flags()
	f.StringVarP(&in.Description, "description", "d", "", "description (markdown)")
	f.StringVarP(&in.Type, "type", "t", "", "bug, feature, task, epic or chore (default task)")
	f.IntP("priority", "p", tracker.DefaultPriority, "0 (highest) to 4")
	f.StringVarP(&assignee, "assignee", "a", "", "who works on it")
	f.StringVar(&parent, "parent", "", "parent issue `ID` (makes a parent-child link)")
	f.StringSliceVar(&in.Tags, "tags", nil, "comma-separated tags")
	f.Int("estimate", 0, "estimated `MINUTES`")
	return cmd
}

func newIssueListCmd(tc trackerCmd) *cobra.Command {
	var f store.IssueFilter
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List issues (compact), highest priority then oldest first",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			f.Priority = intFlag(cmd, "priority")
			return tc.withRepo(cmd.Context(), func(r *store.Repo) error {
				list, err := r.ListIssues(cmd.Context(), f)
				if err != nil {
					return err
				}
				return tc.print(list, func(w io.Writer) {
					compactTable(w, list.Issues)
					footer(w, list.Total, len(list.Issues), list.Hint, list.NextCursor)
				})
			})
		},
	}
	fs := cmd.Flags()
	fs.StringVarP(&f.Status, "status", "s", "", "open, in_progress, blocked or closed")
	fs.StringVarP(&f.Type, "type", "t", "", "bug, feature, task, epic or chore")
	fs.IntP("priority", "p", 0, "0 (highest) to 4")
	fs.StringVarP(&f.Assignee, "assignee", "a", "", "assignee")
	fs.IntVarP(&f.Limit, "limit", "n", store.DefaultListLimit, "most items to return")
	fs.StringVar(&f.Cursor, "cursor", "", cursorHelp)
	return cmd
}

func newIssueShowCmd(tc trackerCmd) *cobra.Command {
	return &cobra.Command{
		Use:   "show ID",
		Short: "Show an issue with its relationships, blockers and the feedback it gave",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return tc.withRepo(cmd.Context(), func(r *store.Repo) error {
				d, err := r.ShowIssue(cmd.Context(), args[0])
				if err == nil {
					d.Tasks, err = issueTasks(cmd.Context(), r.Dir, d.ID)
				}
				if err != nil {
					return err
				}
				return tc.print(d, func(w io.Writer) { issueText(w, d); issueTasksText(w, d.Tasks) })
			})
		},
	}
}

func issueText(w io.Writer, d tracker.IssueDetail) {
	fmt.Fprintf(w, "%s  %s\n", d.ID, d.Title)
	fmt.Fprintf(w, "status %s · type %s · priority %d · assignee %s · tags %s\n", d.Status, d.Type, d.Priority, orDash(d.Assignee), joinTags(d.Tags))
	if d.ParentID != nil {
		fmt.Fprintf(w, "parent %s\n", *d.ParentID)
	}
	if d.Description != "" {
		fmt.Fprintf(w, "\n%s\n", d.Description)
	}
	if len(d.BlockedBy) > 0 {
		fmt.Fprintln(w, "\nblocked by:")
		for _, b := range d.BlockedBy {
			via := ""
			if b.Via != "" {
				via = " (via " + b.Via + ")"
			}
			fmt.Fprintf(w, "  %s %s [%s]%s\n", b.ID, b.Title, b.Status, via)
		}
	}
	if len(d.Relationships.Outgoing)+len(d.Relationships.Incoming) > 0 {
		fmt.Fprintln(w, "\nlinks:")
		relLines(w, d.Relationships)
	}
	if len(d.Feedback) > 0 {
		fmt.Fprintln(w, "\nfeedback given:")
		for _, f := range d.Feedback {
			fmt.Fprintf(w, "  %s on %s line %d [%s, %s]\n", f.ID, f.SpecID, f.Anchor.LineNumber, f.Status, f.Anchor.AnchorStatus)
		}
	}
}

func newIssueUpdateCmd(tc trackerCmd) *cobra.Command {
	var tags []string
	cmd := &cobra.Command{
		Use:   "update ID",
		Short: "Change the given fields of an issue",
		Example: `  sudocode issue update sudocode-a1b2 --status in_progress --assignee alice
  sudocode issue update sudocode-a1b2 --priority 0 --title "Fix login timeout on mobile"`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p := store.IssuePatch{
				Title: stringFlag(cmd, "title"), Description: stringFlag(cmd, "description"), Status: stringFlag(cmd, "status"),
				Type: stringFlag(cmd, "type"), Assignee: stringFlag(cmd, "assignee"),
				Priority: intFlag(cmd, "priority"), Estimate: intFlag(cmd, "estimate"),
			}
			if cmd.Flags().Changed("tags") {
				p.Tags = &tags
			}
			return tc.withRepo(cmd.Context(), func(r *store.Repo) error {
				issue, err := r.UpdateIssue(cmd.Context(), args[0], p)
				if err != nil {
					return err
				}
				return tc.print(issue, func(w io.Writer) { fmt.Fprintf(w, "Updated issue %s [%s]: %s\n", issue.ID, issue.Status, issue.Title) })
			})
		},
	}
	f := cmd.Flags()
	f.String("title", "", "new title")
	f.StringP("description", "d", "", "new description")
	f.StringP("status", "s", "", "open, in_progress, blocked or closed")
	f.StringP("type", "t", "", "bug, feature, task, epic or chore")
	f.IntP("priority", "p", 0, "0 (highest) to 4")
	f.StringP("assignee", "a", "", "new assignee (empty clears it)")
	f.Int("estimate", 0, "estimated `MINUTES`")
	f.StringSliceVar(&tags, "tags", nil, "replace the tags (comma-separated; --tags= clears them)")
	return cmd
}

func newIssueCloseCmd(tc trackerCmd) *cobra.Command {
	var reason string
	cmd := &cobra.Command{
		Use:   "close ID...",
		Short: "Close one or more issues, reporting success per id",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError{fmt.Errorf("give at least one issue id")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return tc.withRepo(cmd.Context(), func(r *store.Repo) error {
				res, err := r.CloseIssues(cmd.Context(), args, reason)
				if err != nil {
					return err
				}
				if err := tc.print(res, func(w io.Writer) {
					for _, c := range res {
						if c.Success {
							fmt.Fprintf(w, "Closed %s\n", c.ID)
						} else {
							fmt.Fprintf(w, "Not closed %s: %s\n", c.ID, *c.Error)
						}
					}
				}); err != nil {
					return err
				}
				for _, c := range res {
					if !c.Success {
						return silentError{exitNotFound}
					}
				}
				return nil
			})
		},
	}
	cmd.Flags().StringVarP(&reason, "reason", "r", tracker.DefaultCloseReason, "why the issues are closed")
	return cmd
}
