package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/sudocode/sudocode/internal/app"
	"github.com/sudocode/sudocode/internal/orchestrator"
	"github.com/sudocode/sudocode/internal/rulesets"
)

// taskFlags are what every task command needs: where the orchestrator of
// the project keeps its tasks and worktrees (the same defaults as
// "sudocode mcp agent", so both see the same tasks).
type taskFlags struct {
	g                        *globalOptions
	stdio                    IO
	project, data, worktrees string
}

func (f *taskFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.project, "project", "", "the project `DIR`, inside a git repository (env SUDOCODE_AGENT_PROJECT; default the working directory)")
	fs.StringVar(&f.data, "data", "", "`DIR` of the task database (env SUDOCODE_AGENT_DATA; default <git dir>/sudocode)")
	fs.StringVar(&f.worktrees, "worktrees", "", "root `DIR` of the task worktrees (env SUDOCODE_WORKTREES; default the project's setting or $XDG_STATE_HOME/sudocode/worktrees)")
}

// open opens the project with its tasks, without the ruleset library
// (the commands that only look at tasks need none).
func (f *taskFlags) open(ctx context.Context) (*app.Project, error) {
	return f.openWith(ctx, nil)
}

// openWith opens the project with its tasks and rules (nil: none).
func (f *taskFlags) openWith(ctx context.Context, rules rulesets.Store) (*app.Project, error) {
	env := f.stdio
	return openTasks(ctx, env, env.orEnv(f.project, "SUDOCODE_AGENT_PROJECT"), env.orEnv(f.data, "SUDOCODE_AGENT_DATA"), f.worktrees, rules)
}

// agentFlags choose the agent a command starts.
type agentFlags struct {
	agent, command, config string
	rules                  storeFlags
}

func (f *agentFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.agent, "agent", "claude", "the agent `CLI`: claude, codex, gemini, opencode, or command (with --command)")
	fs.StringVar(&f.command, "command", "", "with --agent command: the `COMMAND` line to run (sh -c), which gets the prompt on stdin")
	fs.StringVar(&f.config, "config", "", "the agent's options as a JSON `OBJECT`, as create_task's config (model, args, permission_mode, pass_env …)")
	f.rules.register(fs)
}

// resolve returns the tool kind and the config JSON. An agent CLI that is
// not installed (on env's PATH) is refused here, before the issue or a
// worktree is touched.
func (f *agentFlags) resolve(env IO) (string, json.RawMessage, error) {
	a, ok := agentByName(f.agent)
	if !ok {
		return "", nil, usageError{fmt.Errorf("unknown agent %q: want %s", f.agent, agentNames())}
	}
	kind := a.kind
	if err := a.installed(env); err != nil {
		return "", nil, err
	}
	cfg := map[string]any{}
	if f.config != "" {
		if err := json.Unmarshal([]byte(f.config), &cfg); err != nil {
			return "", nil, usageError{fmt.Errorf("--config must be a JSON object: %v", err)}
		}
	}
	if f.command != "" {
		if kind != "COMMAND" {
			return "", nil, usageError{fmt.Errorf("--command goes with --agent command")}
		}
		cfg["command"] = []string{"/bin/sh", "-c", f.command}
	}
	if kind == "COMMAND" && cfg["command"] == nil {
		return "", nil, usageError{fmt.Errorf("--agent command needs --command")}
	}
	b, _ := json.Marshal(cfg)
	return kind, b, nil
}

// openTasksWithRules opens the project with its tasks, and the ruleset
// library when one can be opened (prompts then include the rulesets).
func openTasksWithRules(ctx context.Context, tf *taskFlags, af *agentFlags) (*orchestrator.Orchestrator, func(), error) {
	rules, err := af.rules.open(ctx, tf.stdio)
	if err != nil {
		rules = nil
	}
	p, err := tf.openWith(ctx, rules)
	if err != nil {
		if rules != nil {
			rules.Close()
		}
		return nil, nil, err
	}
	return p.Orchestrator, func() {
		p.Close()
		if rules != nil {
			rules.Close()
		}
	}, nil
}

func newTaskCmd(g *globalOptions, stdio IO) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "task",
		Short: "Work tracker issues with coding agents: start, follow, merge and end tasks",
		Long: `Work tracker issues with coding agents from the shell.

A task is an agent (Claude Code, Codex, Gemini CLI, OpenCode, or any command)
working on one issue in its own git worktree, on its own branch. Its prompt is
assembled from the issue, the specs it implements (with their open feedback),
its parent, what it was discovered from, the closed blockers it builds on, and
the rulesets that apply (tagged like the issue, or listed in .sudocode/agent.json
"rulesets"). The agent is given the tracker's MCP server, so it can give
feedback on specs and file the work it discovers.

  sudocode task start ISSUE [--agent claude]   run an agent on an issue (in the foreground)
  sudocode task list | show ID | logs ID [-f]  see the tasks, a report, the log
  sudocode task follow-up ID "…"               run its agent again with new instructions
  sudocode task comment ID FILE:LINE "…"       comment on a line of its work; comments ID lists them
  sudocode task review ID ["…"]                send the open comments (and instructions) to its agent
  sudocode task merge ID                       merge its branch; closes the issue
  sudocode task end ID                         stop it and remove its worktree

Tasks are the same as those of "sudocode mcp agent" on the same project.
"sudocode run" works the whole ready queue. The commands of .sudocode/agent.json
(copy, setup, merge.check, cleanup) run only once you trusted that exact file:
see "sudocode trust".`,
		Args: groupArgs,
		RunE: groupHelp,
	}
	cmd.AddCommand(newTaskStartCmd(g, stdio), newTaskListCmd(g, stdio), newTaskShowCmd(g, stdio),
		newTaskLogsCmd(g, stdio), newTaskFollowUpCmd(g, stdio), newTaskCommentCmd(g, stdio), newTaskCommentsCmd(g, stdio),
		newTaskReviewCmd(g, stdio), newTaskMergeCmd(g, stdio), newTaskEndCmd(g, stdio))
	return cmd
}

// taskItem is a task as task list prints it.
type taskItem struct {
	ID          string              `json:"id"`
	IssueID     string              `json:"issue_id"`
	Tool        string              `json:"tool"`
	Description string              `json:"description"`
	Status      orchestrator.Status `json:"status"`
	State       string              `json:"state"`      // the status, or merged, conflicted, ended
	StateText   string              `json:"state_text"` // the state in words, as the dashboard shows it
	Branch      string              `json:"branch"`
	Worktree    string              `json:"worktree_path"`
	CreatedAt   time.Time           `json:"created_at"`
}

func itemOf(t orchestrator.Task) taskItem {
	return taskItem{ID: t.ID, IssueID: t.IssueID, Tool: t.Agent, Description: t.Description, Status: t.Status, State: t.State(),
		StateText: orchestrator.StateText(t.State()), Branch: t.Branch, Worktree: t.WorktreePath, CreatedAt: t.CreatedAt}
}
