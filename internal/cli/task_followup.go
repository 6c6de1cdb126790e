package cli

import (
	"context"
	"errors"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sudocode/sudocode/internal/orchestrator"
)

// taskFollowUpOptions are the arguments of "sudocode task follow-up".
type taskFollowUpOptions struct {
	taskFlags
	id, instructions string
}

func newTaskFollowUpCmd(g *globalOptions, stdio IO) *cobra.Command {
	o := &taskFollowUpOptions{taskFlags: taskFlags{g: g, stdio: stdio}}
	cmd := &cobra.Command{
		Use:   "follow-up ID INSTRUCTIONS",
		Short: "Give a stopped task's agent new instructions and run it again, until it stops",
		Long: `Give a task's agent new instructions, as update_task does: the agent runs again
in the task's worktree, on its branch, continuing its session where its CLI can
resume one (Claude Code, Codex, Gemini CLI, OpenCode), with INSTRUCTIONS as its
prompt. Use it after "sudocode task show ID --diff" to ask for changes before
merging, or to retry a failed task.

The task must not be running and must still have its worktree (not ended or
merged). The instructions are recorded on the task's issue, which goes
in_progress again. The log is printed until the agent stops, then the report,
as "sudocode task start" does; the command exits 1 if the agent fails.
Interrupting the command stops the agent. With --json, the report is printed as
JSON (the fields of report_task).`,
		Example: `  sudocode task follow-up k3v9x2mq "Also handle an empty name, with a test."`,
		Args:    exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.id, o.instructions = args[0], args[1]
			return runTaskFollowUp(cmd.Context(), o)
		},
	}
	o.register(cmd.Flags())
	return cmd
}

func runTaskFollowUp(ctx context.Context, o *taskFollowUpOptions) error {
	id := o.id
	if strings.TrimSpace(o.instructions) == "" {
		return usageError{errors.New("INSTRUCTIONS is empty: say what the agent should do next")}
	}
	return runAgain(ctx, &o.taskFlags, id, func(l *orchestrator.Orchestrator) (orchestrator.Task, error) {
		return l.Update(ctx, id, orchestrator.UpdateInput{Instructions: o.instructions}) // the issue records the review
	})
}

// runAgain runs task id's agent again, as send asks it to (a follow-up,
// a review), and prints its log until it stops, then its report, as task
// start does.
func runAgain(ctx context.Context, tf *taskFlags, id string, send func(*orchestrator.Orchestrator) (orchestrator.Task, error)) error {
	l, closeFn, err := openTasksWithRules(ctx, tf, &agentFlags{})
	if err != nil {
		return err
	}
	defer closeFn()
	task, err := l.Get(ctx, id)
	if err != nil {
		return err
	}
	if a, ok := agentByName(task.Agent); ok {
		if err := a.installed(tf.stdio); err != nil {
			return err
		}
	}
	seen, err := l.Logs(ctx, id, 0, 0)
	if err != nil {
		return err
	}
	var since int64
	if len(seen) > 0 {
		since = seen[len(seen)-1].Seq
	}
	t, err := send(l)
	if err != nil {
		return cliHint(err, id)
	}
	return followToReport(ctx, l, t.ID, since, tf.g.json, tf.stdio.Out)
}
