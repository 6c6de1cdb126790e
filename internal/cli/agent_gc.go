package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/sudocode/sudocode/internal/app"
	"github.com/sudocode/sudocode/internal/orchestrator"
	"github.com/sudocode/sudocode/internal/orchestrator/agent"
)

// agentGCOptions are the flags of "sudocode agent gc".
type agentGCOptions struct {
	g                        *globalOptions
	project, data, worktrees string
	stdio                    IO
}

func newAgentCmd(g *globalOptions, stdio IO) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "agent",
		Short: "Manage the agent orchestrator's tasks from the shell (serve them with \"sudocode mcp agent\")",
		Args:  groupArgs,
		RunE:  groupHelp,
	}
	cmd.AddCommand(newAgentGCCmd(&agentGCOptions{g: g, stdio: stdio}))
	return cmd
}

func newAgentGCCmd(o *agentGCOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "gc",
		Short: "Remove the worktrees of finished tasks, and their branches when they hold no commit",
		Long: `Remove the worktree of every finished task (completed, failed or cancelled) that
holds no uncommitted work, and its branch when the branch has no commit of its own;
committed work stays on its branch, and a worktree with uncommitted or untracked
files is never touched: it is listed with its changes. A waiting task can still be
resumed and is left alone. The servers do the same at every start (and the MCP
tool gc_tasks on demand).`,
		Example: `  sudocode agent gc
  sudocode agent gc --project ~/src/app --json`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error { return runAgentGC(cmd.Context(), o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.project, "project", "", "the project `DIR`, inside a git repository (env SUDOCODE_AGENT_PROJECT; default the working directory)")
	f.StringVar(&o.data, "data", "", "where the task database lives (env SUDOCODE_AGENT_DATA; default <git dir>/sudocode)")
	f.StringVar(&o.worktrees, "worktrees", "", "the worktree root (env "+orchestrator.EnvWorktrees+"; default the project's setting or the state directory)")
	return cmd
}

func runAgentGC(ctx context.Context, o *agentGCOptions) error {
	stdio := o.stdio
	dir, err := app.ProjectDir(stdio.orEnv(o.project, "SUDOCODE_AGENT_PROJECT"), stdio.Dir)
	if err != nil {
		return err
	}
	data := stdio.path(stdio.orEnv(o.data, "SUDOCODE_AGENT_DATA"))
	if data == "" {
		data = defaultAgentData(ctx, dir, stdio)
	}
	store, err := orchestrator.OpenStore(ctx, data)
	if err != nil {
		return err
	}
	defer store.Close()
	wt := stdio.path(stdio.orEnv(o.worktrees, orchestrator.EnvWorktrees))
	noAgents := func(string) (agent.Adapter, bool) { return nil, false } // gc starts none
	orch := orchestrator.New(store, noAgents, orchestrator.Options{Repo: dir, Actor: stdio.actor(), Worktrees: wt, NoPool: true, Env: stdio.Env})
	defer orch.Close()
	res, err := orch.GC(ctx)
	if err != nil {
		return err
	}
	if o.g.json {
		return writeJSON(stdio.Out, res)
	}
	for _, id := range res.Removed {
		fmt.Fprintf(stdio.Out, "removed the worktree of task %s\n", id)
	}
	for _, b := range res.BranchesDeleted {
		fmt.Fprintf(stdio.Out, "deleted branch %s (no commit of its own)\n", b)
	}
	for _, k := range res.Kept {
		fmt.Fprintf(stdio.Out, "kept task %s at %s: %s\n", k.TaskID, k.Worktree, k.Reason)
		for _, c := range k.Changes {
			fmt.Fprintf(stdio.Out, "  %s\n", c)
		}
	}
	if len(res.Removed)+len(res.Kept) == 0 {
		fmt.Fprintln(stdio.Out, "nothing to collect")
	}
	return nil
}
