package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/sudocode/sudocode/internal/mcpagent"
	"github.com/sudocode/sudocode/internal/mcpx"
	"github.com/sudocode/sudocode/internal/serve"
)

type mcpAgentOptions struct {
	transport transportFlags
	auth      codeAuth
	project   string
	data      string
	worktrees string
	rules     storeFlags
	stdio     IO
}

func newMCPAgentCmd(stdio IO) *cobra.Command {
	opts := &mcpAgentOptions{stdio: stdio}
	cmd := &cobra.Command{
		Use:   "agent",
		Short: "Serve the agent orchestrator: coding agents working on their own branches",
		Long: `Serve the agent orchestrator over MCP: the tools create_task, update_task,
end_task and report_task, and the resources agent://status, task://list,
task://{id}, task://{id}/logs, task://{id}/result, session://, branch://,
project:// and log://.

Each task runs a real agent CLI headless (CLAUDECODE: claude, GEMINI: gemini,
CODEX: codex, OPENCODE: opencode) or any command (COMMAND) in its own git
worktree on a new branch from HEAD, so the checkout you work in is never
touched. Tasks and their logs are kept in SQLite and survive a restart; a task
whose agent was running when the server stopped is marked failed.

The project is the git repository of --project (env SUDOCODE_AGENT_PROJECT;
default the working directory). Worktrees go outside the repository, under
--worktrees DIR (env SUDOCODE_WORKTREES; else "worktrees" in the project's
.sudocode/agent.json; default $XDG_STATE_HOME/sudocode/worktrees), in a
directory <repo-name>-<hash> per repository; the task database goes under
<git dir>/sudocode (or --data DIR, env SUDOCODE_AGENT_DATA).
Stopping the server stops every running agent and its whole process group.

create_task with issue_id starts from a tracker issue, its prompt assembled from
the tracker and the ruleset library (--store, or Valkey as for "sudocode mcp
rulesets"); merge_task merges a task's branch and closes its issue; run_ready
works the ready queue.

Transport: stdio by default; --http ADDR serves Streamable HTTP at /mcp. Tasks
run commands as you, so over HTTP every request needs a bearer token, on
loopback too: --token (or SUDOCODE_TOKEN) or --token-file, else your own token,
the one "sudocode serve" uses, kept in $XDG_STATE_HOME/sudocode/token and made
at the first start; the configurations of Claude Code, Codex and Cursor that
carry it are printed at start. --no-auth serves without a token: any local
process, any user on this machine and any web page that gets past the Origin
check can then run commands as you; loopback only.`,
		Example: `  claude mcp add sudocode-agent -- sudocode mcp agent
  sudocode mcp agent --project ~/src/app --http 127.0.0.1:8766`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error { return runMCPAgent(cmd.Context(), opts) },
	}
	opts.transport.register(cmd.Flags())
	cmd.Flags().Lookup("token").Usage = "bearer `TOKEN` HTTP clients must send (env SUDOCODE_TOKEN; default your token kept in $XDG_STATE_HOME/sudocode/token)"
	opts.auth.register(cmd.Flags())
	cmd.Flags().StringVar(&opts.project, "project", "", "the project `DIR`, inside a git repository (env SUDOCODE_AGENT_PROJECT; default the working directory)")
	cmd.Flags().StringVar(&opts.data, "data", "", "`DIR` of the task database (env SUDOCODE_AGENT_DATA; default <git dir>/sudocode)")
	opts.rules.register(cmd.Flags())
	cmd.Flags().StringVar(&opts.worktrees, "worktrees", "", "root `DIR` of the task worktrees, outside the repository (env SUDOCODE_WORKTREES; default $XDG_STATE_HOME/sudocode/worktrees)")
	return cmd
}

func runMCPAgent(ctx context.Context, opts *mcpAgentOptions) error {
	stdio := opts.stdio
	logger := mcpx.NewLogger(stdio.Err, opts.transport.level(stdio))
	if opts.transport.http == "" {
		if opts.auth.noAuth {
			return usageError{errors.New("--no-auth is for --http: on stdio only the client that started the server reaches it")}
		}
	} else if err := opts.auth.settle(stdio, &opts.transport, opts.transport.http, logger); err != nil {
		return err
	}
	// The ruleset library feeds the prompts of tasks started from issues;
	// without it the orchestrator still serves, and such prompts say less.
	rules, err := opts.rules.open(ctx, stdio)
	if err != nil {
		logger.Warn("rulesets are unavailable to issue prompts", "reason", err.Error())
		rules = nil
	} else {
		defer rules.Close()
	}
	p, err := openTasks(ctx, stdio, stdio.orEnv(opts.project, "SUDOCODE_AGENT_PROJECT"), stdio.orEnv(opts.data, "SUDOCODE_AGENT_DATA"), opts.worktrees, rules)
	if err != nil {
		return err
	}
	defer p.Close()
	t, closeT, err := opts.transport.open(stdio, "agent", logger)
	if err != nil {
		return err
	}
	defer closeT()
	t.Calls.Metrics.WatchTasks(serve.TaskCounts(p.Orchestrator))
	agentServer := mcpagent.New(p.Orchestrator, mcpagent.Options{Version: Version, Logger: logger, Shared: t.Stateless})
	defer agentServer.Close()
	server := agentServer.Server
	if t.HTTPAddr == "" {
		return mcpx.Serve(ctx, server, t, logger)
	}
	ln, err := mcpx.Listen(t)
	if err != nil {
		return err
	}
	url := "http://" + ln.Addr().String() + mcpx.Path
	if t.Token != "" {
		kept := ""
		if opts.auth.keptIn != "" {
			kept = " (kept in " + opts.auth.keptIn + ")"
		}
		fmt.Fprintf(stdio.Out, "sudocode mcp agent: %s needs Authorization: Bearer %s%s; client configs:\n", url, t.Token, kept)
		configsFor([]mcpEndpoint{{name: "sudocode-agent", url: url}}, t.Token).print(stdio.Out)
	}
	logger.Info("serving MCP over Streamable HTTP", "url", url)
	return mcpx.ServeHTTP(ctx, ln, mcpx.Handler(server, t, logger), t.BodyTimeout, logger)
}
