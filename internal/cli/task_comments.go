package cli

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/orchestrator"
	"github.com/sudocode/sudocode/internal/plural"
)

// taskCommentOptions are the arguments of "sudocode task comment".
type taskCommentOptions struct {
	taskFlags
	id, where, body string
}

func newTaskCommentCmd(g *globalOptions, stdio IO) *cobra.Command {
	o := &taskCommentOptions{taskFlags: taskFlags{g: g, stdio: stdio}}
	cmd := &cobra.Command{
		Use:   "comment ID FILE:LINE TEXT",
		Short: "Comment on a line of a task's diff, for its next review",
		Long: `Comment on a line of a task's work, as the dashboard's review does: FILE is
relative to the task's worktree, LINE is its line as the file is now (1 for the
first). The comment is kept open until "sudocode task review ID" sends the open
comments to the agent; it follows its code as later runs move it, and reads
stale when the code is gone. "sudocode task comments ID" lists them.`,
		Example: `  sudocode task comment k3v9x2mq internal/greet.go:12 "An empty name should not print a comma."`,
		Args:    exactArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.id, o.where, o.body = args[0], args[1], args[2]
			return runTaskComment(cmd.Context(), o)
		},
	}
	o.register(cmd.Flags())
	return cmd
}

func runTaskComment(ctx context.Context, o *taskCommentOptions) error {
	i := strings.LastIndexByte(o.where, ':')
	file, line, err := o.where[:max(i, 0)], 0, error(nil)
	if i >= 0 {
		line, err = strconv.Atoi(o.where[i+1:])
	}
	if i <= 0 || err != nil || line < 1 {
		return usageError{fmt.Errorf("%q: want FILE:LINE, LINE a number from 1 (e.g. main.go:12)", o.where)}
	}
	p, err := o.open(ctx)
	if err != nil {
		return err
	}
	defer p.Close()
	c, err := p.Orchestrator.AddCodeComment(ctx, o.id, orchestrator.CodeCommentInput{File: file, Line: line, Body: o.body})
	if err != nil {
		return err
	}
	if o.g.json {
		return writeJSON(o.stdio.Out, c)
	}
	fmt.Fprintf(o.stdio.Out, "comment %s on %s:%d, open until the next review (sudocode task review %s)\n", c.ID, c.File, c.Line, o.id)
	return nil
}

// taskCommentsOptions are the arguments of "sudocode task comments".
type taskCommentsOptions struct {
	taskFlags
	id string
}

func newTaskCommentsCmd(g *globalOptions, stdio IO) *cobra.Command {
	o := &taskCommentsOptions{taskFlags: taskFlags{g: g, stdio: stdio}}
	cmd := &cobra.Command{
		Use:   "comments ID",
		Short: "List the comments on a task's diff: where their code is now, open or sent",
		Long: `List a task's code comments (those of "sudocode task comment" and of the
dashboard's review), each at the line where its code is now, with the code it
was made on, whether it is open (not sent to the agent yet) or sent with which
review, and stale when its code is gone. With --json, the comments with their
anchors.`,
		Example: `  sudocode task comments k3v9x2mq`,
		Args:    exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.id = args[0]
			return runTaskComments(cmd.Context(), o)
		},
	}
	o.register(cmd.Flags())
	return cmd
}

func runTaskComments(ctx context.Context, o *taskCommentsOptions) error {
	p, err := o.open(ctx)
	if err != nil {
		return err
	}
	defer p.Close()
	cs, err := p.Orchestrator.CodeComments(ctx, o.id)
	if err != nil {
		return err
	}
	if o.g.json {
		if cs == nil {
			cs = []orchestrator.CodeComment{}
		}
		return writeJSON(o.stdio.Out, map[string]any{"comments": cs})
	}
	if len(cs) == 0 {
		fmt.Fprintf(o.stdio.Out, "no comments; add one with: sudocode task comment %s FILE:LINE TEXT\n", o.id)
		return nil
	}
	w := tabwriter.NewWriter(o.stdio.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tWHERE\tSTATE\tCOMMENT")
	for _, c := range cs {
		where := fmt.Sprintf("%s:%d", c.File, c.Line)
		if c.Stale {
			where = c.File + " (code gone)"
		}
		state := string(c.State)
		if c.State == orchestrator.CommentSent {
			state = fmt.Sprintf("sent (review %d)", c.Review)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", c.ID, where, state, oneLine(c.Body, 80))
	}
	return w.Flush()
}

// oneLine is s on one line, cut to n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// taskReviewOptions are the arguments of "sudocode task review".
type taskReviewOptions struct {
	taskFlags
	id, followUp string
}

func newTaskReviewCmd(g *globalOptions, stdio IO) *cobra.Command {
	o := &taskReviewOptions{taskFlags: taskFlags{g: g, stdio: stdio}}
	cmd := &cobra.Command{
		Use:   "review ID [INSTRUCTIONS]",
		Short: "Send a task's open code comments (and instructions) to its agent, and run it again",
		Long: `Send the task's open code comments to its agent as one follow-up, each with
where its code is, the code quoted and the comment, then INSTRUCTIONS if given:
the agent runs again as with "sudocode task follow-up", whose rules apply (the
task must not be running and must still have its worktree). The comments are
then sent and go on following their code. With no open comment, INSTRUCTIONS
is needed.`,
		Example: `  sudocode task review k3v9x2mq
  sudocode task review k3v9x2mq "Then run the tests."`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 1 || len(args) > 2 {
				return fault.New(fault.Invalid, "accepts 1 or 2 arg(s), received %d", len(args)).WithHint(usageLine(cmd))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			o.id = args[0]
			if len(args) == 2 {
				o.followUp = args[1]
			}
			return runTaskReview(cmd.Context(), o)
		},
	}
	o.register(cmd.Flags())
	return cmd
}

func runTaskReview(ctx context.Context, o *taskReviewOptions) error {
	return runAgain(ctx, &o.taskFlags, o.id, func(l *orchestrator.Orchestrator) (orchestrator.Task, error) {
		t, sent, err := l.SendReview(ctx, o.id, o.followUp)
		if err == nil && !o.g.json {
			fmt.Fprintf(o.stdio.Out, "sent %s to task %s's agent\n", plural.Count(len(sent), "comment", "comments"), t.ID)
		}
		return t, err
	})
}
