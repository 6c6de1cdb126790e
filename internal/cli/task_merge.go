package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/sudocode/sudocode/internal/orchestrator"
)

// taskMergeOptions are the argument and flags of "sudocode task merge".
type taskMergeOptions struct {
	taskFlags
	id                string
	strategy, message string
	// keep is --keep-branch when given, else nil (the project's setting).
	keep *bool
}

func newTaskMergeCmd(g *globalOptions, stdio IO) *cobra.Command {
	o := &taskMergeOptions{taskFlags: taskFlags{g: g, stdio: stdio}}
	var keep bool
	cmd := &cobra.Command{
		Use:   "merge ID",
		Short: "Merge a task's branch into your checkout's branch and close its issue",
		Long: `Merge a finished task's branch into the branch your checkout has checked out:
squash (default: one commit whose message names the issue), ff (fast-forward
only) or merge (a merge commit); the project's .sudocode/agent.json "merge"
may set the strategy, a check command (run in the sandbox, once you trusted the
file with "sudocode trust"; untrusted, it refuses the merge) and keep_branch.

The merge is computed first and applied all or nothing. It is refused, and
nothing changes, when it conflicts (the conflicting files are listed), when the
check command fails on the merged tree, or when your checkout has uncommitted
changes to files it changes. On success the task's issue is closed with the
merge commit in its reason, the worktree is removed and the branch deleted
(unless kept).

With --json: {task, strategy, base, commit, files, removal, issue_id, close_reason}.`,
		Example: `  sudocode task merge k3v9x2mq
  sudocode task merge k3v9x2mq --strategy merge --keep-branch`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.id = args[0]
			if cmd.Flags().Changed("keep-branch") {
				o.keep = &keep
			}
			return runTaskMerge(cmd.Context(), o)
		},
	}
	o.register(cmd.Flags())
	cmd.Flags().StringVar(&o.strategy, "strategy", "", "squash, ff or merge (default the project's merge.strategy, else squash)")
	cmd.Flags().StringVarP(&o.message, "message", "m", "", "the commit `MESSAGE` (default: the issue's title and id)")
	cmd.Flags().BoolVar(&keep, "keep-branch", false, "keep the task's branch (default the project's merge.keep_branch, else delete it)")
	return cmd
}

func runTaskMerge(ctx context.Context, o *taskMergeOptions) error {
	out := o.stdio.Out
	l, closeFn, err := openTasksWithRules(ctx, &o.taskFlags, &agentFlags{})
	if err != nil {
		return err
	}
	defer closeFn()
	res, err := l.Merge(ctx, o.id, orchestrator.MergeInput{Strategy: o.strategy, Message: o.message, KeepBranch: o.keep})
	if err != nil {
		return cliHint(err, o.id)
	}
	if o.g.json {
		return writeJSON(out, res)
	}
	fmt.Fprintf(out, "merged task %s into %s as %s (%s)\n", res.Task.ID, res.Base, res.Commit, res.Strategy)
	if res.IssueID != "" {
		fmt.Fprintf(out, "closed %s: %s\n", res.IssueID, res.CloseReason)
	}
	return nil
}

// taskEndOptions are the argument and flags of "sudocode task end".
type taskEndOptions struct {
	taskFlags
	id           string
	status       string
	deleteBranch bool
}

func newTaskEndCmd(g *globalOptions, stdio IO) *cobra.Command {
	o := &taskEndOptions{taskFlags: taskFlags{g: g, stdio: stdio}}
	cmd := &cobra.Command{
		Use:   "end ID",
		Short: "Stop a task's agent and remove its worktree, keeping its branch",
		Long: `End a task as end_task does: stop its agent (its whole process group) if it
runs, remove its worktree, and keep its branch with any uncommitted work saved on
it as a commit (--delete-branch throws branch and work away). --status sets the
final status: completed, failed or cancelled (default: cancelled for a running
task, completed for a waiting one). A task started from an issue hands it back:
the issue is open again, unassigned, with a line saying the task was ended (and
what became of its branch), so "sudocode ready" lists it. With --json: {task,
removal}.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.id = args[0]
			return runTaskEnd(cmd.Context(), o)
		},
	}
	o.register(cmd.Flags())
	cmd.Flags().StringVar(&o.status, "status", "", "the final status: completed, failed or cancelled")
	cmd.Flags().BoolVar(&o.deleteBranch, "delete-branch", false, "delete the task's branch and its uncommitted work")
	return cmd
}

func runTaskEnd(ctx context.Context, o *taskEndOptions) error {
	out := o.stdio.Out
	l, closeFn, err := openTasksWithRules(ctx, &o.taskFlags, &agentFlags{})
	if err != nil {
		return err
	}
	defer closeFn()
	in := orchestrator.EndInput{KeepBranch: !o.deleteBranch}
	if o.status != "" {
		st, err := orchestrator.ParseEndStatus(o.status)
		if err != nil {
			return usageError{err}
		}
		in.Status = st
	}
	res, err := l.End(ctx, o.id, in)
	if err != nil {
		return err
	}
	if o.g.json {
		return writeJSON(out, res)
	}
	fmt.Fprintf(out, "ended task %s (%s)", res.Task.ID, res.Task.Status)
	if res.Removal.BranchDeleted {
		fmt.Fprintf(out, "; branch %s deleted\n", res.Task.Branch)
	} else {
		fmt.Fprintf(out, "; branch %s kept\n", res.Task.Branch)
	}
	return nil
}

// writeJSONLine writes v as one line of JSON.
func writeJSONLine(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// sleepCtx waits a polling interval, or until ctx ends.
func sleepCtx(ctx context.Context) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(200 * time.Millisecond):
		return nil
	}
}
