package cli

import (
	"strings"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/orchestrator/agent"
)

// agentCLI is a coding-agent CLI as a user names it (--agent), as the
// orchestrator's create_task names it (its tool kind), the program it
// runs, and the npm package at the version this release is tested with
// (the README's table of agent CLIs gives the same).
type agentCLI struct {
	name, kind, bin, pkg string
}

// agentCLIs are the agents --agent takes, in the order help lists them,
// with their pinned packages (agent.Packages).
var agentCLIs = []agentCLI{
	{"claude", agent.ToolClaudeCode, "claude", agent.Packages[agent.ToolClaudeCode]},
	{"codex", agent.ToolCodex, "codex", agent.Packages[agent.ToolCodex]},
	{"gemini", agent.ToolGemini, "gemini", agent.Packages[agent.ToolGemini]},
	{"opencode", agent.ToolOpenCode, "opencode", agent.Packages[agent.ToolOpenCode]},
	{"command", agent.ToolCommand, "", ""},
}

// agentByName finds an agent by its CLI name or its tool kind, in any case.
func agentByName(name string) (agentCLI, bool) {
	for _, a := range agentCLIs {
		if strings.EqualFold(name, a.name) || strings.EqualFold(name, a.kind) {
			return a, true
		}
	}
	return agentCLI{}, false
}

// installed reports an agent CLI missing from env's PATH (which the
// agent would run with) as a missing prerequisite whose hint installs the
// pinned version.
func (a agentCLI) installed(env IO) error {
	if a.bin == "" {
		return nil
	}
	if _, err := agent.LookPath(a.bin, env.Getenv("PATH")); err != nil {
		return prerequisiteError{fault.New(fault.Unavailable, "%s is not installed (no %s on PATH)", a.name, a.bin).
			WithHint("npm install -g " + a.pkg)}
	}
	return nil
}

// prerequisiteError marks a program the command needs that is not
// installed: the user must install it, where an unreachable store (exit 5)
// may come back by itself.
type prerequisiteError struct{ error }

func (e prerequisiteError) Unwrap() error { return e.error }

// agentNames lists the --agent values for help and errors.
func agentNames() string {
	names := make([]string, len(agentCLIs))
	for i, a := range agentCLIs {
		names[i] = a.name
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
