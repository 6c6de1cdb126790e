package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/sudocode/sudocode/internal/orchestrator"
)

// runOptions are the flags of "sudocode run".
type runOptions struct {
	taskFlags
	agent           agentFlags
	limit, parallel int
	// priority is --priority when given, else nil (any).
	priority           *int
	assignee, strategy string
}

func newRunCmd(g *globalOptions, stdio IO) *cobra.Command {
	o := &runOptions{taskFlags: taskFlags{g: g, stdio: stdio}}
	var priority int
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
			if cmd.Flags().Changed("priority") {
				o.priority = &priority
			}
			return runRun(cmd.Context(), o)
		},
	}
	o.register(cmd.Flags())
	o.agent.register(cmd.Flags())
	cmd.Flags().IntVar(&o.limit, "limit", 10, "start at most `N` issues in all")
	cmd.Flags().IntVar(&o.parallel, "parallel", 1, "run at most `K` agents at a time")
	cmd.Flags().IntVar(&priority, "priority", 0, "only ready issues of this priority, 0 (highest) to 4")
	cmd.Flags().StringVar(&o.assignee, "assignee", "", "only ready issues assigned to this person")
	cmd.Flags().StringVar(&o.strategy, "strategy", "", "how each task is merged: squash, ff or merge (default the project's, else squash)")
	return cmd
}

func runRun(ctx context.Context, o *runOptions) error {
	out := o.stdio.Out
	kind, cfg, err := o.agent.resolve(o.stdio)
	if err != nil {
		return err
	}
	l, closeFn, err := openTasksWithRules(ctx, &o.taskFlags, &o.agent)
	if err != nil {
		return err
	}
	defer closeFn()
	res, err := l.RunReady(ctx, orchestrator.RunInput{Agent: kind, Config: cfg, Limit: o.limit, Parallel: o.parallel, Assignee: o.assignee,
		Priority: o.priority, Merge: orchestrator.MergeInput{Strategy: o.strategy}})
	if err != nil {
		return err
	}
	if o.g.json {
		err = writeJSON(out, res)
	} else {
		if len(res.Items) == 0 {
			fmt.Fprintln(out, "no issue is ready")
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
			fmt.Fprintln(out, line)
		}
	}
	for _, it := range res.Items {
		if it.Outcome != orchestrator.IssueMerged && err == nil {
			return silentError{code: 1}
		}
	}
	return err
}
