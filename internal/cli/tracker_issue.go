package cli

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/spf13/cobra"

	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

func newIssueCmd(tc trackerCmd) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "issue",
		Short: "Create, list, show, update, close and comment on issues",
		Args:  groupArgs,
		RunE:  groupHelp,
	}
	cmd.AddCommand(newIssueCreateCmd(tc), newIssueListCmd(tc), newIssueShowCmd(tc), newIssueUpdateCmd(tc), newIssueCloseCmd(tc),
		newIssueCommentCmd(tc), newIssueCreateBatchCmd(tc), newIssueUpdateBatchCmd(tc))
	return cmd
}

type issueCreateOptions struct {
	trackerCmd
	in               store.IssueInput
	parent, assignee string
}

func newIssueCreateCmd(tc trackerCmd) *cobra.Command {
	o := &issueCreateOptions{trackerCmd: tc}
	cmd := &cobra.Command{
		Use:   "create TITLE",
		Short: "Create an issue",
		Example: `  sudocode issue create "Fix login timeout" --type bug --priority 1 --tags auth,web
  sudocode issue create "Write the parser" --parent sudocode-a1b2 --estimate 90`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.in.Title = args[0]
			o.in.Priority = intFlag(cmd, "priority")
			o.in.Estimate = intFlag(cmd, "estimate")
			return runIssueCreate(cmd.Context(), o)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.in.Description, "description", "d", "", "description (markdown)")
	f.StringVarP(&o.in.Type, "type", "t", "", "bug, feature, task, epic or chore (default task)")
	f.IntP("priority", "p", tracker.DefaultPriority, "0 (highest) to 4")
	f.StringVarP(&o.assignee, "assignee", "a", "", "who works on it")
	f.StringVar(&o.parent, "parent", "", "parent issue `ID` (makes a parent-child link)")
	f.StringSliceVar(&o.in.Tags, "tags", nil, "comma-separated tags")
	f.Int("estimate", 0, "estimated `MINUTES`")
	return cmd
}

func runIssueCreate(ctx context.Context, o *issueCreateOptions) error {
	in := o.in
	in.Parent, in.Assignee = nonEmpty(o.parent), nonEmpty(o.assignee)
	return runOn(ctx, o.trackerCmd, func(r *store.Repo) (tracker.Issue, error) { return r.CreateIssue(ctx, in) },
		func(w io.Writer, issue tracker.Issue) {
			fmt.Fprintf(w, "Created issue %s: %s\n", issue.ID, issue.Title)
		})
}

// nonEmpty is s, or nil for "" (a flag left out).
func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

type issueListOptions struct {
	trackerCmd
	filter store.IssueFilter
	all    bool
}

func newIssueListCmd(tc trackerCmd) *cobra.Command {
	o := &issueListOptions{trackerCmd: tc}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List open issues (compact), highest priority then oldest first; --all adds closed ones",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.filter.Priority = intFlag(cmd, "priority")
			return runIssueList(cmd.Context(), o)
		},
	}
	fs := cmd.Flags()
	fs.BoolVar(&o.all, "all", false, "include closed issues (a --status lists any status)")
	fs.StringVarP(&o.filter.Status, "status", "s", "", "open, in_progress, blocked or closed")
	fs.StringVarP(&o.filter.Type, "type", "t", "", "bug, feature, task, epic or chore")
	fs.IntP("priority", "p", 0, "0 (highest) to 4")
	fs.StringVarP(&o.filter.Assignee, "assignee", "a", "", "assignee")
	limitFlag(fs, &o.filter.Limit, store.DefaultListLimit, "most items to return")
	fs.StringVar(&o.filter.Cursor, "cursor", "", cursorHelp)
	return cmd
}

func runIssueList(ctx context.Context, o *issueListOptions) error {
	f := o.filter
	f.HideClosed = !o.all
	return runOn(ctx, o.trackerCmd, func(r *store.Repo) (tracker.IssueList, error) { return r.ListIssues(ctx, f) },
		func(w io.Writer, list tracker.IssueList) {
			compactTable(w, list.Issues)
			footer(w, list.Total, len(list.Issues), list.Hint, list.NextCursor)
			if list.HiddenClosed > 0 {
				fmt.Fprintf(w, "%d closed not shown: --all lists them\n", list.HiddenClosed)
			}
		})
}

// idOptions are the arguments of a command on one id.
type idOptions struct {
	trackerCmd
	id string
}

// withID completes cmd, a command on one id ("show ID"), to run run.
func withID(tc trackerCmd, cmd *cobra.Command, run func(context.Context, *idOptions) error) *cobra.Command {
	o := &idOptions{trackerCmd: tc}
	cmd.Args = exactArgs(1)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		o.id = args[0]
		return run(cmd.Context(), o)
	}
	return cmd
}

func newIssueShowCmd(tc trackerCmd) *cobra.Command {
	return withID(tc, &cobra.Command{
		Use:   "show ID",
		Short: "Show an issue with its relationships, blockers, feedback given, comments and history",
		Long: `Show an issue: its fields, what it waits for, its links, the feedback it gave on
specs, the agent tasks started on it, then its comments and its history (changes of
status and assignee, links added and removed, agent tasks), each oldest first.
--json gives the same as one object; the activity is in "comments" and "history".`,
	}, runIssueShow)
}

// runIssueShow shows the issue with the agent tasks started on it.
func runIssueShow(ctx context.Context, o *idOptions) error {
	return runOn(ctx, o.trackerCmd, func(r *store.Repo) (tracker.IssueDetail, error) {
		d, err := r.ShowIssue(ctx, o.id)
		if err == nil {
			d.Tasks, err = issueTasks(ctx, r.Dir, d.ID)
		}
		if err == nil {
			d.Usage, err = issueUsage(ctx, r.Dir, d.ID)
		}
		return d, err
	}, func(w io.Writer, d tracker.IssueDetail) {
		issueText(w, d)
		issueTasksText(w, d.Tasks)
		if d.Usage != nil {
			fmt.Fprintf(w, "usage: %s\n", spendText(*d.Usage))
		}
		activityText(w, d)
	})
}

func issueText(w io.Writer, d tracker.IssueDetail) {
	fmt.Fprintf(w, "%s  %s\n", d.ID, d.Title)
	fmt.Fprintf(w, "status %s · type %s · priority %d · assignee %s · tags %s\n", d.Status, d.Type, d.Priority, orDash(d.Assignee), joinTags(d.Tags))
	if d.ParentID != nil {
		fmt.Fprintf(w, "parent %s\n", *d.ParentID)
	}
	if d.ClosedAt != nil {
		reason := ""
		if d.CloseReason != nil && *d.CloseReason != "" {
			reason = ": " + *d.CloseReason
		}
		fmt.Fprintf(w, "closed %s%s\n", d.ClosedAt.Local().Format("2006-01-02 15:04"), reason)
	}
	if d.Description != "" {
		fmt.Fprintf(w, "\n%s\n", d.Description)
	}
	if len(d.BlockedBy) > 0 {
		fmt.Fprintln(w, "\nwaits for:")
		for _, b := range d.BlockedBy {
			via := ""
			if b.Via != nil {
				via = " (through its ancestor " + *b.Via + ")"
			}
			fmt.Fprintf(w, "  %s %s [%s]%s\n", b.ID, b.Title, b.Status, via)
		}
	}
	if len(d.Relationships.Outgoing)+len(d.Relationships.Incoming) > 0 {
		fmt.Fprintln(w, "\nlinks:")
		relLines(w, d.Relationships, "this issue")
	}
	if len(d.Feedback) > 0 {
		fmt.Fprintln(w, "\nfeedback given:")
		for _, f := range d.Feedback {
			fmt.Fprintf(w, "  %s on %s line %d [%s, %s]\n", f.ID, f.SpecID, f.Anchor.LineNumber, f.Status, f.Anchor.AnchorStatus)
		}
	}
}

type issueUpdateOptions struct {
	trackerCmd
	id    string
	patch store.IssuePatch
	tags  []string
}

func newIssueUpdateCmd(tc trackerCmd) *cobra.Command {
	o := &issueUpdateOptions{trackerCmd: tc}
	cmd := &cobra.Command{
		Use:   "update ID",
		Short: "Change the given fields of an issue",
		Example: `  sudocode issue update sudocode-a1b2 --status in_progress --assignee alice
  sudocode issue update sudocode-a1b2 --priority 0 --title "Fix login timeout on mobile"`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.id = args[0]
			o.patch = store.IssuePatch{
				Title: stringFlag(cmd, "title"), Description: stringFlag(cmd, "description"), Status: stringFlag(cmd, "status"),
				Type: stringFlag(cmd, "type"), Assignee: stringFlag(cmd, "assignee"),
				Priority: intFlag(cmd, "priority"), Estimate: intFlag(cmd, "estimate"),
			}
			if cmd.Flags().Changed("tags") {
				o.patch.Tags = &o.tags
			}
			return runIssueUpdate(cmd.Context(), o)
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
	f.StringSliceVar(&o.tags, "tags", nil, "replace the tags (comma-separated; --tags= clears them)")
	return cmd
}

func runIssueUpdate(ctx context.Context, o *issueUpdateOptions) error {
	return runOn(ctx, o.trackerCmd, func(r *store.Repo) (tracker.Issue, error) { return r.UpdateIssue(ctx, o.id, o.patch) },
		func(w io.Writer, issue tracker.Issue) {
			fmt.Fprintf(w, "Updated issue %s [%s]: %s\n", issue.ID, issue.Status, issue.Title)
		})
}

type issueCloseOptions struct {
	trackerCmd
	ids    []string
	reason string
}

func newIssueCloseCmd(tc trackerCmd) *cobra.Command {
	o := &issueCloseOptions{trackerCmd: tc}
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
			o.ids = args
			return runIssueClose(cmd.Context(), o)
		},
	}
	cmd.Flags().StringVarP(&o.reason, "reason", "r", tracker.DefaultCloseReason, "why the issues are closed")
	return cmd
}

// runIssueClose reports each id; when any failed, it ends with the exit
// code of a missing id after the report.
func runIssueClose(ctx context.Context, o *issueCloseOptions) error {
	failed := false
	err := runOn(ctx, o.trackerCmd, func(r *store.Repo) ([]tracker.CloseResult, error) {
		res, err := r.CloseIssues(ctx, o.ids, o.reason)
		failed = slices.ContainsFunc(res, func(c tracker.CloseResult) bool { return !c.Success })
		return res, err
	}, func(w io.Writer, res []tracker.CloseResult) {
		for _, c := range res {
			if c.Success {
				fmt.Fprintf(w, "Closed %s\n", c.ID)
			} else {
				fmt.Fprintf(w, "Not closed %s: %s\n", c.ID, *c.Error)
			}
		}
	})
	if err == nil && failed {
		return silentError{exitNotFound}
	}
	return err
}
