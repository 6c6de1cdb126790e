package cli

import (
	"fmt"
	"io"
	"os"

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

func newFeedbackAddCmd(tc trackerCmd) *cobra.Command {
	var in store.FeedbackInput
	cmd := &cobra.Command{
		Use:   "add ISSUE-ID SPEC-ID",
		Short: "Add feedback from an issue on a spec, anchored at --line or at the first line holding --text",
		Example: `  sudocode feedback add sudocode-a1b2 sudocode-spec-x9y8 --content "Which token lifetime?" --type question --text "refresh token"
  sudocode feedback add sudocode-a1b2 sudocode-spec-x9y8 --content "Missing error codes" --type missing_requirement --line 42`,
		Args: exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			in.IssueID, in.SpecID = args[0], args[1]
			in.Line, in.Text = intFlag(cmd, "line"), stringFlag(cmd, "text")
			if in.Agent == "" {
				in.Agent = os.Getenv("USER")
			}
			return tc.withRepo(cmd.Context(), func(r *store.Repo) error {
				f, err := r.AddFeedback(cmd.Context(), in)
				if err != nil {
					return err
				}
				return tc.print(f, func(w io.Writer) {
					fmt.Fprintf(w, "Added feedback %s on %s line %d\n", f.ID, f.SpecID, f.Anchor.LineNumber)
				})
			})
		},
	}
	f := cmd.Flags()
	f.StringVarP(&in.Content, "content", "c", "", "the feedback (required)")
	f.StringVarP(&in.Type, "type", "t", "", "ambiguity, missing_requirement, technical_constraint, suggestion or question (default ambiguity)")
	f.IntP("line", "l", 0, "anchor at this line of the spec's markdown (1-based)")
	f.String("text", "", "anchor at the first line holding this text")
	f.StringVar(&in.Agent, "agent", "", "agent name (default $USER)")
	return cmd
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

func newFeedbackListCmd(tc trackerCmd) *cobra.Command {
	var f store.FeedbackFilter
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List feedback (compact), oldest first",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return tc.withRepo(cmd.Context(), func(r *store.Repo) error {
				list, err := r.ListFeedback(cmd.Context(), f)
				if err != nil {
					return err
				}
				return tc.print(list, func(w io.Writer) {
					feedbackTable(w, list.Feedback)
					footer(w, list.Total, len(list.Feedback), list.Hint, list.NextCursor)
				})
			})
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&f.IssueID, "issue", "", "only feedback from this issue")
	fs.StringVar(&f.SpecID, "spec", "", "only feedback on this spec")
	fs.StringVarP(&f.Type, "type", "t", "", "ambiguity, missing_requirement, technical_constraint, suggestion or question")
	fs.StringVarP(&f.Status, "status", "s", "", "open, acknowledged, resolved or wont_fix")
	fs.IntVarP(&f.Limit, "limit", "n", store.DefaultListLimit, "most items to return")
	fs.StringVar(&f.Cursor, "cursor", "", cursorHelp)
	return cmd
}

func newFeedbackStaleCmd(tc trackerCmd) *cobra.Command {
	var limit int
	var next string
	cmd := &cobra.Command{
		Use:   "stale",
		Short: "List feedback whose anchor was lost when its spec changed",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return tc.withRepo(cmd.Context(), func(r *store.Repo) error {
				list, err := r.ListFeedback(cmd.Context(), store.FeedbackFilter{Stale: true, Limit: limit, Cursor: next})
				if err != nil {
					return err
				}
				return tc.print(list, func(w io.Writer) {
					feedbackTable(w, list.Feedback)
					footer(w, list.Total, len(list.Feedback), list.Hint, list.NextCursor)
				})
			})
		},
	}
	cmd.Flags().IntVarP(&limit, "limit", "n", store.DefaultListLimit, "most items to return")
	cmd.Flags().StringVar(&next, "cursor", "", cursorHelp)
	return cmd
}

func newFeedbackShowCmd(tc trackerCmd) *cobra.Command {
	return &cobra.Command{
		Use:   "show ID",
		Short: "Show feedback with its anchor and the line it points at now",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return tc.withRepo(cmd.Context(), func(r *store.Repo) error {
				d, err := r.ShowFeedback(cmd.Context(), args[0])
				if err != nil {
					return err
				}
				return tc.print(d, func(w io.Writer) {
					fmt.Fprintf(w, "%s  %s from %s on %s [%s]\n", d.ID, d.Type, d.IssueID, d.SpecID, d.Status)
					fmt.Fprintf(w, "anchor %s at line %d (section %s)\n", d.Anchor.AnchorStatus, d.Anchor.LineNumber, orDash(d.Anchor.SectionHeading))
					if d.Location != nil {
						fmt.Fprintf(w, "line %d: %s\n", d.Location.LineNumber, d.Location.LineText)
					}
					fmt.Fprintf(w, "\n%s\n", d.Content)
					if d.Resolution != nil {
						fmt.Fprintf(w, "\nresolution: %s\n", *d.Resolution)
					}
				})
			})
		},
	}
}

// newFeedbackStatusCmd builds acknowledge, resolve and wont-fix; note names
// the flag that records why (none for acknowledge).
func newFeedbackStatusCmd(tc trackerCmd, use, short string, st tracker.FeedbackStatus, note string) *cobra.Command {
	cmd := &cobra.Command{
		Use:   use + " ID",
		Short: short,
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var res *string
			if note != "" {
				res = stringFlag(cmd, note)
			}
			return tc.withRepo(cmd.Context(), func(r *store.Repo) error {
				f, err := r.SetFeedbackStatus(cmd.Context(), args[0], st, res)
				if err != nil {
					return err
				}
				return tc.print(f, func(w io.Writer) { fmt.Fprintf(w, "Feedback %s is %s\n", f.ID, f.Status) })
			})
		},
	}
	if note != "" {
		cmd.Flags().String(note, "", "why (kept as the feedback's resolution)")
	}
	return cmd
}

func newFeedbackRelocateCmd(tc trackerCmd) *cobra.Command {
	var line int
	cmd := &cobra.Command{
		Use:   "relocate ID --line N",
		Short: "Re-anchor feedback at a line by hand (for a stale anchor)",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !cmd.Flags().Changed("line") {
				return usageError{fmt.Errorf("--line is required")}
			}
			return tc.withRepo(cmd.Context(), func(r *store.Repo) error {
				f, err := r.RelocateFeedback(cmd.Context(), args[0], line)
				if err != nil {
					return err
				}
				return tc.print(f, func(w io.Writer) { fmt.Fprintf(w, "Feedback %s now at line %d\n", f.ID, f.Anchor.LineNumber) })
			})
		},
	}
	cmd.Flags().IntVarP(&line, "line", "l", 0, "the new line (1-based)")
	return cmd
}
