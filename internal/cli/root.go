package cli

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sudocode/sudocode/internal/fault"
)

// Version is the binary's version; release builds set it with
// -ldflags "-X github.com/sudocode/sudocode/internal/cli.Version=v1.2.3".
var Version = "0.1.0-dev"

func newRootCmd(stdio IO) *cobra.Command {
	root := &cobra.Command{
		Use:     "sudocode",
		Version: Version,
		Short:   "A workbench of MCP servers for AI coding agents",
		Long: `sudocode gives AI coding agents MCP servers to plan, share rules, act and delegate.

Tracker: git-native specs, issues, relationships and anchored feedback, kept in
.sudocode/ (found by walking up from the working directory, like .git):
  sudocode init | issue … | spec … | link | unlink | feedback … | ready | blocked | stats | status
  sudocode search | export | import | merge-driver

Servers (stdio, or Streamable HTTP with --http ADDR):
  sudocode mcp            the tracker, for agents
  sudocode mcp rulesets   a shared library of AI-editor rulesets
  sudocode mcp coding     safe file, search, patch, exec and git tools over one workspace
                          (also as coding-tools-mcp; HTTP on --host/--port, or --stdio)
  sudocode mcp agent      coding agents (Claude Code, Gemini, Codex, OpenCode, any command)
                          on their own git worktrees and branches

All of them over HTTP on one port, with a live web dashboard:
  sudocode serve          http://127.0.0.1:7474/ (MCP at /mcp/tracker, /mcp/rulesets, …)

Work issues with agents, each on its own worktree and branch, merged when done:
  sudocode task start ISSUE | list | show | logs | merge | end
  sudocode run            agents on the ready issues, merging as they finish
  sudocode trust          let the commands of .sudocode/agent.json (setup, merge.check …) run

Manage the ruleset library from the shell with "sudocode rulesets".
Every command takes --json; errors are then JSON on stderr too.`,
		Args: groupArgs,
		RunE: groupHelp,
	}
	g := &globalOptions{}
	root.PersistentFlags().BoolVar(&g.json, "json", false, "print JSON instead of text (errors too, on stderr)")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usageError{err} })
	tc := trackerCmd{g: g, stdio: stdio}
	root.AddCommand(newMCPCmd(stdio), newRulesetsCmd(g, stdio),
		newInitCmd(tc), newIssueCmd(tc), newSpecCmd(tc), newLinkCmd(tc), newUnlinkCmd(tc), newFeedbackCmd(tc),
		newReadyCmd(tc), newBlockedCmd(tc), newStatsCmd(tc), newStatusCmd(tc),
		newSearchCmd(tc), newExportCmd(tc), newImportCmd(tc), newMergeDriverCmd(tc), newDoctorCmd(tc),
		newServeCmd(g, stdio), newAgentCmd(g, stdio), newTaskCmd(g, stdio), newRunCmd(g, stdio), newTrustCmd(g, stdio), newWorkerCmd(g, stdio), newWorkersCmd(g, stdio))
	return root
}

// exactArgs is cobra.ExactArgs as invalid input (exit 2), whose hint gives
// the command's usage line.
func exactArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := cobra.ExactArgs(n)(cmd, args); err != nil {
			return fault.New(fault.Invalid, "%s", err.Error()).WithHint(usageLine(cmd))
		}
		return nil
	}
}

// groupArgs is the Args of a command that only groups subcommands: an
// unknown subcommand is invalid input (exit 2), with a hint naming the
// subcommands it is close to. Without it cobra prints the help and exits 0
// below the root, hiding a typo from a script, and fails at the root with
// an error that is not a usage error (exit 1).
func groupArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	err := fault.New(fault.Invalid, "unknown command %q for %q", args[0], cmd.CommandPath())
	if cmd.SuggestionsMinimumDistance <= 0 {
		cmd.SuggestionsMinimumDistance = 2 // cobra's default, which it sets on the root only
	}
	if near := cmd.SuggestionsFor(args[0]); len(near) > 0 {
		err = err.WithHint("did you mean " + quotedOr(near) + "?")
	} else {
		err = err.WithHint(fmt.Sprintf("see %q for the commands", cmd.CommandPath()+" --help"))
	}
	return err
}

// quotedOr is "a", "a" or "b", "a", "b" or "c".
func quotedOr(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = strconv.Quote(w)
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

// groupHelp runs a command that only groups subcommands: it prints the help.
func groupHelp(cmd *cobra.Command, _ []string) error { return cmd.Help() }
