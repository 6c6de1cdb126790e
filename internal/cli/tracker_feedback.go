package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

func newFeedbackCmd(tc trackerCmd) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "feedback",
		Short: "Anchored feedback from issues on specs",
		Long: `Feedback is a note from an issue (its author) on a spec, anchored at a line of
the spec's markdown. When the markdown changes (through sudocode or by a hand edit,
noticed at the next command) every anchor is relocated: kept in place, followed to
its moved section, found again by its text and context, or marked stale for a
person (or "feedback relocate") to re-anchor.`,
		Args: groupArgs,
		RunE: groupHelp,
	}
	cmd.AddCommand(newFeedbackAddCmd(tc), newFeedbackListCmd(tc), newFeedbackShowCmd(tc),
		newFeedbackStatusCmd(tc, "acknowledge", "Acknowledge feedback (status acknowledged)", tracker.FeedbackAcknowledged, ""),
		newFeedbackStatusCmd(tc, "resolve", "Mark feedback resolved", tracker.FeedbackResolved, "comment"),
		newFeedbackStatusCmd(tc, "wont-fix", "Mark feedback won't fix", tracker.FeedbackWontFix, "reason"),
		newFeedbackStaleCmd(tc), newFeedbackRelocateCmd(tc))
	return cmd
}

type feedbackAddOptions struct {
	trackerCmd
	in store.FeedbackInput
}

func newFeedbackAddCmd(tc trackerCmd) *cobra.Command {
	o := &feedbackAddOptions{trackerCmd: tc}
	cmd := &cobra.Command{
		Use:   "add ISSUE-ID SPEC-ID",
		Short: "Add feedback from an issue on a spec, anchored at --line or at the first line holding --text",
		Example: `  sudocode feedback add sudocode-a1b2 sudocode-spec-x9y8 --content "Which token lifetime?" --type question --text "refresh token"
  sudocode feedback add sudocode-a1b2 sudocode-spec-x9y8 --content "Missing error codes" --type missing_requirement --line 42`,
		Args: exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.in.IssueID, o.in.SpecID = args[0], args[1]
			o.in.Line, o.in.Text = intFlag(cmd, "line"), stringFlag(cmd, "text")
			return runFeedbackAdd(cmd.Context(), o)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.in.Content, "content", "c", "", "the feedback (required)")
	f.StringVarP(&o.in.Type, "type", "t", "", "ambiguity, missing_requirement, technical_constraint, suggestion or question (default ambiguity)")
	f.IntP("line", "l", 0, "anchor at this line of the spec's markdown (1-based, a line with text)")
	f.String("text", "", "anchor at the first line holding this text")
	f.StringVar(&o.in.Agent, "agent", "", "agent name (default $USER)")
	return cmd
}

func runFeedbackAdd(ctx context.Context, o *feedbackAddOptions) error {
	in := o.in
	if in.Agent == "" {
		in.Agent = o.stdio.Getenv("USER")
	}
	return runOn(ctx, o.trackerCmd, func(r *store.Repo) (tracker.Feedback, error) { return r.AddFeedback(ctx, in) },
		func(w io.Writer, f tracker.Feedback) {
			fmt.Fprintf(w, "Added feedback %s on %s line %d\n", f.ID, f.SpecID, f.Anchor.LineNumber)
		})
}

func feedbackTable(w io.Writer, items []tracker.CompactFeedback) {
	if len(items) == 0 {
		fmt.Fprintln(w, "(none)")
		return
	}
	fmt.Fprintln(w, "ID\tISSUE\tSPEC\tLINE\tSTATUS\tANCHOR\tTYPE\tCONTENT")
	for _, f := range items {
		fmt.Fprintf(w, "%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\n", f.ID, f.IssueID, f.SpecID, f.LineNumber, f.Status, f.AnchorStatus, f.Type, f.Content)
	}
}

// feedbackListOptions are the filters of feedback list and feedback stale.
type feedbackListOptions struct {
	trackerCmd
	filter store.FeedbackFilter
}

func newFeedbackListCmd(tc trackerCmd) *cobra.Command {
	o := &feedbackListOptions{trackerCmd: tc}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List feedback (compact), oldest first",
		Args:  exactArgs(0),
		RunE:  func(cmd *cobra.Command, _ []string) error { return runFeedbackList(cmd.Context(), o) },
	}
	fs := cmd.Flags()
	fs.StringVar(&o.filter.IssueID, "issue", "", "only feedback from this issue")
	fs.StringVar(&o.filter.SpecID, "spec", "", "only feedback on this spec")
	fs.StringVarP(&o.filter.Type, "type", "t", "", "ambiguity, missing_requirement, technical_constraint, suggestion or question")
	fs.StringVarP(&o.filter.Status, "status", "s", "", "open, acknowledged, resolved or wont_fix")
	pageFlags(cmd, &o.filter)
	return cmd
}

// pageFlags are --limit and --cursor of a feedback list.
func pageFlags(cmd *cobra.Command, f *store.FeedbackFilter) {
	limitFlag(cmd.Flags(), &f.Limit, store.DefaultListLimit, "most items to return")
	cmd.Flags().StringVar(&f.Cursor, "cursor", "", cursorHelp)
}

func runFeedbackList(ctx context.Context, o *feedbackListOptions) error {
	return runOn(ctx, o.trackerCmd, func(r *store.Repo) (tracker.FeedbackList, error) { return r.ListFeedback(ctx, o.filter) },
		func(w io.Writer, list tracker.FeedbackList) {
			feedbackTable(w, list.Feedback)
			footer(w, list.Total, len(list.Feedback), list.Hint, list.NextCursor)
		})
}

func newFeedbackStaleCmd(tc trackerCmd) *cobra.Command {
	o := &feedbackListOptions{trackerCmd: tc, filter: store.FeedbackFilter{Stale: true}}
	cmd := &cobra.Command{
		Use:   "stale",
		Short: "List feedback whose anchor was lost when its spec changed",
		Args:  exactArgs(0),
		RunE:  func(cmd *cobra.Command, _ []string) error { return runFeedbackList(cmd.Context(), o) },
	}
	pageFlags(cmd, &o.filter)
	return cmd
}

func newFeedbackShowCmd(tc trackerCmd) *cobra.Command {
	return withID(tc, &cobra.Command{
		Use:   "show ID",
		Short: "Show feedback with its anchor and the line it points at now",
	}, runFeedbackShow)
}

func runFeedbackShow(ctx context.Context, o *idOptions) error {
	return runOn(ctx, o.trackerCmd, func(r *store.Repo) (tracker.FeedbackDetail, error) { return r.ShowFeedback(ctx, o.id) }, feedbackText)
}

func feedbackText(w io.Writer, d tracker.FeedbackDetail) {
	fmt.Fprintf(w, "%s  %s from %s on %s [%s]\n", d.ID, d.Type, d.IssueID, d.SpecID, d.Status)
	fmt.Fprintf(w, "anchor %s at line %d (section %s)\n", d.Anchor.AnchorStatus, d.Anchor.LineNumber, orDash(d.Anchor.SectionHeading))
	if d.Location != nil {
		fmt.Fprintf(w, "line %d: %s\n", d.Location.LineNumber, d.Location.LineText)
	}
	fmt.Fprintf(w, "\n%s\n", d.Content)
	if d.Resolution != nil {
		fmt.Fprintf(w, "\nresolution: %s\n", *d.Resolution)
	}
}

type feedbackStatusOptions struct {
	trackerCmd
	id         string
	status     tracker.FeedbackStatus
	resolution *string
}

// newFeedbackStatusCmd builds acknowledge, resolve and wont-fix; note names
// the flag that records why (none for acknowledge).
func newFeedbackStatusCmd(tc trackerCmd, use, short string, st tracker.FeedbackStatus, note string) *cobra.Command {
	o := &feedbackStatusOptions{trackerCmd: tc, status: st}
	cmd := &cobra.Command{
		Use:   use + " ID",
		Short: short,
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.id = args[0]
			if note != "" {
				o.resolution = stringFlag(cmd, note)
			}
			return runFeedbackStatus(cmd.Context(), o)
		},
	}
	if note != "" {
		cmd.Flags().String(note, "", "why (kept as the feedback's resolution)")
	}
	return cmd
}

func runFeedbackStatus(ctx context.Context, o *feedbackStatusOptions) error {
	return runOn(ctx, o.trackerCmd, func(r *store.Repo) (tracker.Feedback, error) {
		return r.SetFeedbackStatus(ctx, o.id, o.status, o.resolution)
	}, func(w io.Writer, f tracker.Feedback) { fmt.Fprintf(w, "Feedback %s is %s\n", f.ID, f.Status) })
}

type feedbackRelocateOptions struct {
	trackerCmd
	id   string
	line *int
}

func newFeedbackRelocateCmd(tc trackerCmd) *cobra.Command {
	o := &feedbackRelocateOptions{trackerCmd: tc}
	cmd := &cobra.Command{
		Use:   "relocate ID --line N",
		Short: "Re-anchor feedback at a line by hand (for a stale anchor)",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.id, o.line = args[0], intFlag(cmd, "line")
			return runFeedbackRelocate(cmd.Context(), o)
		},
	}
	cmd.Flags().IntP("line", "l", 0, "the new line (1-based, a line with text)")
	return cmd
}

func runFeedbackRelocate(ctx context.Context, o *feedbackRelocateOptions) error {
	if o.line == nil {
		return usageError{fmt.Errorf("--line is required")}
	}
	return runOn(ctx, o.trackerCmd, func(r *store.Repo) (tracker.Feedback, error) { return r.RelocateFeedback(ctx, o.id, *o.line) },
		func(w io.Writer, f tracker.Feedback) {
			fmt.Fprintf(w, "Feedback %s now at line %d\n", f.ID, f.Anchor.LineNumber)
		})
}
