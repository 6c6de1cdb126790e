package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/sudocode/sudocode/internal/orchestrator"
	"github.com/sudocode/sudocode/internal/orchestrator/agent"
)

func newTaskListCmd(g *globalOptions, stdio IO) *cobra.Command {
	tf := &taskFlags{g: g, stdio: stdio}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the project's tasks, oldest first",
		Long: `List the project's tasks, oldest first: id, state, agent, issue, branch. The
state is the task's status, except that a merged task reads merged, one whose
merge was refused for a conflict conflicted, and one ended without a merge
ended (all three have status completed).
With --json: {"tasks": [{id, issue_id, tool, description, status, state,
branch, worktree_path, created_at}]}.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error { return runTaskList(cmd.Context(), tf) },
	}
	tf.register(cmd.Flags())
	return cmd
}

func runTaskList(ctx context.Context, tf *taskFlags) error {
	out := tf.stdio.Out
	p, err := tf.open(ctx)
	if err != nil {
		return err
	}
	defer p.Close()
	ts, err := p.Orchestrator.List(ctx)
	if err != nil {
		return err
	}
	items := make([]taskItem, len(ts))
	for i, t := range ts {
		items[i] = itemOf(t)
	}
	if tf.g.json {
		return writeJSON(out, map[string]any{"tasks": items})
	}
	if len(items) == 0 {
		fmt.Fprintln(out, "no tasks; start one with: sudocode task start ISSUE")
		return nil
	}
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tSTATE\tAGENT\tISSUE\tBRANCH")
	for _, it := range items {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", it.ID, it.StateText, agent.Name(it.Tool), it.IssueID, it.Branch)
	}
	return w.Flush()
}

// taskShowOptions are the argument and flags of "sudocode task show".
type taskShowOptions struct {
	taskFlags
	id           string
	prompt, diff bool
}

func newTaskShowCmd(g *globalOptions, stdio IO) *cobra.Command {
	o := &taskShowOptions{taskFlags: taskFlags{g: g, stdio: stdio}}
	cmd := &cobra.Command{
		Use:   "show ID",
		Short: "Report on a task: status, outcome, answer, files changed, its issue and prompt",
		Long: `Report on a task, as report_task does: status and timings, the agent's final
answer, usage, the files changed and a diff stat, its issue, and (with --prompt,
or in --json) the prompt the agent was given. The files of a finished task are
those its last run left; with --diff they are read from its worktree as it is
now.

With --diff, also the full diff of what "sudocode task merge" would take, file by
file against the commit the task started from: the branch's commits and the
worktree's uncommitted and untracked files (the merge commits those as they
are; they are listed as not committed yet). With --json, the report gains
"diff": {base_sha, branch, source, files, uncommitted, text, truncated}.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.id = args[0]
			return runTaskShow(cmd.Context(), o)
		},
	}
	o.register(cmd.Flags())
	cmd.Flags().BoolVar(&o.prompt, "prompt", false, "also print the prompt the agent was given")
	cmd.Flags().BoolVar(&o.diff, "diff", false, "also print the diff the merge would take, uncommitted and untracked files included")
	return cmd
}

func runTaskShow(ctx context.Context, o *taskShowOptions) error {
	out := o.stdio.Out
	p, err := o.open(ctx)
	if err != nil {
		return err
	}
	defer p.Close()
	orch := p.Orchestrator
	// Without --diff, a finished task's files are those its last run
	// recorded: reading the worktree again takes a sandboxed git per step.
	report := orch.RecordedReport
	if o.diff {
		report = orch.Report
	}
	rep, err := report(ctx, o.id)
	if err != nil {
		return err
	}
	var d orchestrator.Diff
	if o.diff {
		if d, err = orch.Diff(ctx, o.id); err != nil {
			return err
		}
	}
	if o.g.json {
		if o.diff {
			return writeJSON(out, struct {
				orchestrator.Report
				Diff orchestrator.Diff `json:"diff"`
			}{rep, d})
		}
		return writeJSON(out, rep)
	}
	printReport(out, rep)
	if o.prompt {
		fmt.Fprintf(out, "\n%s\n", rep.Prompt)
	}
	if o.diff {
		printDiff(out, d)
	}
	return nil
}

// taskLogsOptions are the argument and flags of "sudocode task logs".
type taskLogsOptions struct {
	taskFlags
	id     string
	follow bool
}

func newTaskLogsCmd(g *globalOptions, stdio IO) *cobra.Command {
	o := &taskLogsOptions{taskFlags: taskFlags{g: g, stdio: stdio}}
	cmd := &cobra.Command{
		Use:   "logs ID",
		Short: "Print a task's log; -f follows it until the agent stops",
		Long: `Print a task's log: one line per event (seq, kind, tool, text). With -f, keep
printing new events until the agent stops (the task may run in another process,
such as "sudocode mcp agent"). With --json, one JSON object per line:
{"seq", "event": {time, kind, text, tool, …}}.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.id = args[0]
			return runTaskLogs(cmd.Context(), o)
		},
	}
	o.register(cmd.Flags())
	cmd.Flags().BoolVarP(&o.follow, "follow", "f", false, "follow the log until the agent stops")
	return cmd
}

func runTaskLogs(ctx context.Context, o *taskLogsOptions) error {
	p, err := o.open(ctx)
	if err != nil {
		return err
	}
	defer p.Close()
	orch := p.Orchestrator
	print := func(evs []orchestrator.StoredEvent) (int64, error) {
		var last int64
		for _, e := range evs {
			last = e.Seq
			if o.g.json {
				if err := writeJSONLine(o.stdio.Out, e); err != nil {
					return last, err
				}
			} else {
				fmt.Fprintln(o.stdio.Out, logLine(e))
			}
		}
		return last, nil
	}
	evs, err := orch.Logs(ctx, o.id, 0, 0)
	if err != nil {
		return err
	}
	last, err := print(evs)
	if err != nil || !o.follow {
		return err
	}
	for {
		t, err := orch.Get(ctx, o.id)
		if err != nil {
			return err
		}
		evs, err := orch.Logs(ctx, o.id, last, 0)
		if err != nil {
			return err
		}
		if n, err := print(evs); err != nil {
			return err
		} else if n > 0 {
			last = n
		}
		if !t.Running() && t.Status != orchestrator.StatusPending {
			return nil
		}
		if err := sleepCtx(ctx); err != nil {
			return err
		}
	}
}

// printDiff prints a task's diff after a line saying what it holds.
func printDiff(out io.Writer, d orchestrator.Diff) {
	fmt.Fprintln(out)
	switch {
	case d.Source == "":
		fmt.Fprintln(out, "no diff: the task's worktree and branch are gone (merged or ended)")
		return
	case len(d.Files) == 0:
		fmt.Fprintln(out, "no changes: the merge would take nothing")
		return
	}
	if len(d.Uncommitted) > 0 {
		fmt.Fprintf(out, "not committed yet: %s (the merge commits them as they are)\n\n", strings.Join(d.Uncommitted, ", "))
	}
	fmt.Fprint(out, d.Text)
	if d.Truncated {
		fmt.Fprintf(out, "… the diff was cut at %d bytes\n", orchestrator.DiffLimit)
	}
}
