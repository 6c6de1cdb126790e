package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/sudocode/sudocode/internal/orchestrator"
	"github.com/sudocode/sudocode/internal/orchestrator/agent"
)

// taskStartOptions are the argument and flags of "sudocode task start".
type taskStartOptions struct {
	taskFlags
	agent                agentFlags
	issue                string
	instructions, branch string
}

func newTaskStartCmd(g *globalOptions, stdio IO) *cobra.Command {
	o := &taskStartOptions{taskFlags: taskFlags{g: g, stdio: stdio}}
	cmd := &cobra.Command{
		Use:   "start ISSUE",
		Short: "Run an agent on a tracker issue, in its own worktree and branch, until it stops",
		Long: `Run an agent on a tracker issue until it stops, printing its log.

The prompt is assembled from the issue and its context (see "sudocode task");
--instructions adds to it. The issue goes in_progress, assigned to the agent.
The agent works in its own git worktree on a new branch from HEAD; your checkout
is not touched. When it stops, the report is printed: merge its branch with
"sudocode task merge ID". If the agent fails, the issue is reopened with the
failure appended to its description, and the command exits 1. Interrupting the
command stops the agent.

With --json, the report is printed as JSON (the fields of report_task).`,
		Example: `  sudocode task start app-3f2a
  sudocode task start app-3f2a --agent codex --config '{"model": "gpt-5.5"}'
  sudocode task start app-3f2a --agent command --command 'make fix && git commit -qam fix'`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.issue = args[0]
			return runTaskStart(cmd.Context(), o)
		},
	}
	o.register(cmd.Flags())
	o.agent.register(cmd.Flags())
	cmd.Flags().StringVar(&o.instructions, "instructions", "", "`TEXT` added to the assembled prompt")
	cmd.Flags().StringVar(&o.branch, "branch", "", "the new branch's `NAME` (default sudocode/<issue>-<title>-<task id>)")
	return cmd
}

func runTaskStart(ctx context.Context, o *taskStartOptions) error {
	kind, cfg, err := o.agent.resolve(o.stdio)
	if err != nil {
		return err
	}
	l, closeFn, err := openTasksWithRules(ctx, &o.taskFlags, &o.agent)
	if err != nil {
		return err
	}
	defer closeFn()
	t, err := l.Start(ctx, orchestrator.StartInput{IssueID: o.issue, Agent: kind, Instructions: o.instructions, Branch: o.branch, Config: cfg, Actor: o.stdio.actor()})
	if err != nil {
		return cliHint(err, o.issue)
	}
	if !o.g.json {
		fmt.Fprintf(o.stdio.Out, "task %s: %s on branch %s\n", t.ID, agent.Name(t.Agent), t.Branch)
	}
	return followToReport(ctx, l, t.ID, 0, o.g.json, o.stdio.Out)
}

// followToReport follows task id's log after seq since until its agent
// stops, records the end on its issue and prints the report (as JSON with
// asJSON); a failed agent ends the command with exit 1.
func followToReport(ctx context.Context, l *orchestrator.Orchestrator, id string, since int64, asJSON bool, out io.Writer) error {
	t, err := follow(ctx, l, id, since, !asJSON, out)
	if err != nil {
		return err
	}
	l.Finished(ctx, t)
	rep, err := l.RecordedReport(ctx, t.ID)
	if err != nil {
		return err
	}
	if asJSON {
		err = writeJSON(out, rep)
	} else {
		printReport(out, rep)
	}
	if err == nil && t.Status == orchestrator.StatusFailed {
		return silentError{code: 1}
	}
	return err
}

// follow prints task id's log after seq since (when print) until its agent
// stops, and returns the task as it then is. It reads again as soon as
// the orchestrator reports a change of the task (an agent this process
// runs), and every otherPoll (an agent another process runs, whose
// changes this one does not hear of).
func follow(ctx context.Context, orch *orchestrator.Orchestrator, id string, since int64, print bool, out io.Writer) (orchestrator.Task, error) {
	changed := make(chan struct{}, 1)
	unsubscribe := orch.Subscribe(func(c orchestrator.Change) {
		if c.Task.ID == id {
			select {
			case changed <- struct{}{}:
			default:
			}
		}
	})
	defer unsubscribe()
	poll := time.NewTicker(otherPoll)
	defer poll.Stop()
	for {
		t, err := orch.Get(ctx, id)
		if err != nil {
			return t, err
		}
		evs, err := orch.Logs(ctx, id, since, 0)
		if err != nil {
			return t, err
		}
		for _, e := range evs {
			since = e.Seq
			if print {
				fmt.Fprintln(out, logLine(e))
			}
		}
		if !t.Running() && t.Status != orchestrator.StatusPending {
			return t, nil
		}
		select {
		case <-ctx.Done():
			return t, ctx.Err()
		case <-changed:
		case <-poll.C:
		}
	}
}

// otherPoll is how often follow reads a task whose agent another process
// runs.
const otherPoll = time.Second

// logLine is one log event as text: seq, kind, tool, text on one line.
func logLine(e orchestrator.StoredEvent) string {
	head := fmt.Sprintf("%4d %s", e.Seq, e.Event.Kind)
	if e.Event.Tool != "" {
		head += " " + e.Event.Tool
	}
	text := strings.ReplaceAll(strings.TrimSpace(e.Event.Text), "\n", " ⏎ ")
	if len(e.Event.Files) > 0 {
		text = strings.Join(e.Event.Files, ", ")
	}
	if e.Event.Kind == agent.KindUsage && text == "" {
		text = usageText(orchestrator.Usage{Tokens: e.Event.Tokens, CostUSD: e.Event.CostUSD})
	}
	if len(text) > 200 {
		text = text[:200] + "…"
	}
	return head + ": " + text
}

func printReport(out io.Writer, r orchestrator.Report) {
	fmt.Fprintf(out, "task %s (%s) %s", r.ID, agent.Name(r.Agent), statusPhrase(r.Status))
	if r.Outcome != "" && r.Outcome != string(r.Status) {
		fmt.Fprintf(out, ", outcome %s", r.Outcome)
	}
	fmt.Fprintln(out)
	if r.IssueID != "" {
		fmt.Fprintf(out, "issue:   %s", r.IssueID)
		if u := r.Usage.Issue; u != nil {
			fmt.Fprintf(out, " (its %s)", spendText(*u))
		}
		fmt.Fprintln(out)
	}
	if r.State == orchestrator.StateMerged {
		fmt.Fprintf(out, "branch:  %s (merged)\n", r.Branch)
	} else {
		fmt.Fprintf(out, "branch:  %s (%s)\n", r.Branch, count(r.Commits, "commit"))
	}
	if len(r.FilesChanged) > 0 {
		fmt.Fprintf(out, "files:   %s\n", strings.Join(r.FilesChanged, ", "))
	}
	if u := usageText(r.Usage.Task); u != "" {
		fmt.Fprintf(out, "usage:   %s\n", u)
	}
	if r.FinalAnswer != "" {
		fmt.Fprintf(out, "answer:  %s\n", r.FinalAnswer)
	}
	if r.Error != nil {
		fmt.Fprintf(out, "error:   %s\n", r.Error.Sentence())
	}
}
