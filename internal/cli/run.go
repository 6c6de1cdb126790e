package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/sudocode/sudocode/internal/app"
	"github.com/sudocode/sudocode/internal/orchestrator"
)

func newRunCmd(g *globalOptions, stdio IO) *cobra.Command {
	tf, af := &taskFlags{g: g}, &agentFlags{}
	var limit, parallel, priority int
	var assignee, strategy string
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Work the ready issues with agents: start, merge, and start what becomes ready",
		Long: `Work the tracker's ready queue with agents, as the MCP tool run_ready does.

Agents start on the ready issues (highest priority, then oldest; --priority and
--assignee filter as "sudocode ready" does), at most --parallel at a time and
--limit in all. Each task that finishes is merged as "sudocode task merge" does,
closing its issue, so the issues it blocked become ready and start in turn. A
task that fails leaves its issue open with the failure recorded, and what it
blocks is not started; a refused merge leaves the task waiting for you.

Prints one line per issue; with --json {"items": [{issue_id, task_id, outcome,
commit, error}]}, outcome being merged, failed, not_merged or not_started.
Exits 1 when an issue was not merged.`,
		Example: `  sudocode run --agent claude --parallel 2
  sudocode run --agent command --command 'make fix && git commit -qam fix' --limit 1`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			kind, cfg, err := af.resolve()
			if err != nil {
				return err
			}
			l, closeFn, err := openLoop(ctx, stdio, tf, af)
			if err != nil {
				return err
			}
			defer closeFn()
			in := app.RunInput{Agent: kind, Config: cfg, Limit: limit, Parallel: parallel, Assignee: assignee,
				Merge: orchestrator.MergeInput{Strategy: strategy}}
			if cmd.Flags().Changed("priority") {
				in.Priority = &priority
			}
			res, err := l.RunReady(ctx, in)
			if err != nil {
				return err
			}
			if g.json {
				err = writeJSON(stdio.Out, res)
			} else {
				if len(res.Items) == 0 {
					fmt.Fprintln(stdio.Out, "no issue is ready")
				}
				for _, it := range res.Items {
					line := fmt.Sprintf("%s %s", it.IssueID, it.Outcome)
					if it.TaskID != "" {
						line += " (task " + it.TaskID + ")"
					}
					if it.Commit != "" {
						line += " as " + it.Commit
					}
					if it.Error != "" {
						line += ": " + it.Error
					}
					fmt.Fprintln(stdio.Out, line)
				}
			}
			for _, it := range res.Items {
				if it.Outcome != app.OutcomeMerged && err == nil {
					return silentError{code: 1}
				}
			}
			return err
		},
	}
	tf.register(cmd.Flags())
	af.register(cmd.Flags())
	cmd.Flags().IntVar(&limit, "limit", 10, "start at most `N` issues in all")
	cmd.Flags().IntVar(&parallel, "parallel", 1, "run at most `K` agents at a time")
	cmd.Flags().IntVar(&priority, "priority", 0, "only ready issues of this priority, 0 (highest) to 4")
	cmd.Flags().StringVar(&assignee, "assignee", "", "only ready issues assigned to this person")
	cmd.Flags().StringVar(&strategy, "strategy", "", "how each task is merged: squash, ff or merge (default the project's, else squash)")
	return cmd
}
