package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

type issueCommentOptions struct {
	trackerCmd
	id, body, bodyFile string
	bodySet            bool
}

func newIssueCommentCmd(tc trackerCmd) *cobra.Command {
	o := &issueCommentOptions{trackerCmd: tc}
	cmd := &cobra.Command{
		Use:   "comment ID [TEXT]",
		Short: "Comment on an issue (markdown); issue show lists the comments and the history",
		Long: `Add a comment to an issue. The text is markdown, written by you (SUDOCODE_ACTOR,
else the user), at most 64 KiB. Give it as an argument, or with --body-file FILE, or
as "-" (or --body-file -) to read standard input.

Comments are appended to the issue's activity file in .sudocode/records/activity/,
with the history of its changes (status, assignee, links, agent tasks) that the
tracker records by itself; commit them like the other records. Two branches that
both comment merge without conflict (the merge driver keeps both sides' comments).
"sudocode issue show ID" prints them after the issue; --json gives them as
"comments" and "history".`,
		Example: `  sudocode issue comment sudocode-a1b2 "Reproduced on main: the timeout is 5s, not 30s."
  git log -1 --format=%B | sudocode issue comment sudocode-a1b2 -
  sudocode issue comment sudocode-a1b2 --body-file notes.md`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 1 || len(args) > 2 {
				return usageError{fmt.Errorf("want ID and the comment's TEXT (or --body-file)")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			o.id = args[0]
			if len(args) == 2 {
				o.body, o.bodySet = args[1], true
			}
			return runIssueComment(cmd.Context(), o)
		},
	}
	cmd.Flags().StringVar(&o.bodyFile, "body-file", "", "read the comment from `FILE` ('-' for standard input)")
	return cmd
}

func runIssueComment(ctx context.Context, o *issueCommentOptions) error {
	body := o.body
	switch {
	case o.bodySet && o.bodyFile != "":
		return usageError{fmt.Errorf("give the comment as TEXT or with --body-file, not both")}
	case !o.bodySet && o.bodyFile == "":
		return usageError{fmt.Errorf("no comment: give its TEXT, --body-file FILE, or - to read standard input")}
	case o.bodyFile != "" || body == "-":
		path := o.bodyFile
		if path == "" {
			path = "-"
		}
		var err error
		if body, err = readCommentInput(path, o.stdio); err != nil {
			return err
		}
	}
	return runOn(ctx, o.trackerCmd, func(r *store.Repo) (tracker.Comment, error) { return r.AddComment(ctx, o.id, body) },
		func(w io.Writer, c tracker.Comment) {
			fmt.Fprintf(w, "Commented on %s (%s)\n", c.IssueID, c.ID)
		})
}

// readCommentInput reads a comment from a file or standard input, reading
// no more than one byte over the limit (the store says it is too long).
func readCommentInput(path string, stdio IO) (string, error) {
	if path != "-" {
		return readInput(path, stdio)
	}
	b, err := io.ReadAll(io.LimitReader(stdio.In, tracker.MaxCommentBytes+1))
	if err != nil {
		return "", fault.Wrap(fault.Unavailable, err, "cannot read the comment from standard input")
	}
	return string(b), nil
}

// activityText prints an issue's comments, then its history, each oldest
// first.
func activityText(w io.Writer, d tracker.IssueDetail) {
	if len(d.Comments) > 0 {
		fmt.Fprintln(w, "\ncomments:")
		for _, c := range d.Comments {
			edited := ""
			if !c.UpdatedAt.Equal(c.CreatedAt) {
				edited = " (edited)"
			}
			fmt.Fprintf(w, "  %s · %s%s  %s\n", orUnknown(c.Author), when(c.CreatedAt), edited, c.ID)
			for line := range strings.SplitSeq(c.Body, "\n") {
				fmt.Fprintln(w, strings.TrimRight("    "+line, " \t"))
			}
		}
	}
	if len(d.History) > 0 {
		fmt.Fprintln(w, "\nhistory:")
		for _, h := range d.History {
			fmt.Fprintf(w, "  %s  %s  %s\n", when(h.At), orUnknown(h.Actor), historyPhrase(h))
		}
	}
}

// historyPhrase says what one history event changed, in words.
func historyPhrase(h tracker.HistoryEvent) string {
	from, to := orDash(h.From), orDash(h.To)
	switch h.Field {
	case tracker.ChangeLink:
		if h.To != nil {
			return "linked: " + linkWords(to)
		}
		return "unlinked: " + linkWords(from)
	case tracker.ChangeTask:
		return "task " + orDash(h.TaskID) + " " + to
	}
	return h.Field + " " + from + " → " + to
}

// linkWords reads a link of the history ("FROM TYPE TO") as the links of
// issue show do: "A waits for B [blocks]".
func linkWords(v string) string {
	f := strings.Fields(v)
	if len(f) != 3 {
		return v
	}
	rt := tracker.RelType(f[1])
	return rt.Reads(f[0], f[2]) + " [" + string(rt) + "]"
}

func when(t time.Time) string { return t.Local().Format("2006-01-02 15:04") }

func orUnknown(s string) string {
	if s == "" {
		return "(unknown)"
	}
	return s
}
