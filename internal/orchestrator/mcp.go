package orchestrator

import (
	"os"
	"path/filepath"

	"github.com/sudocode/sudocode/internal/orchestrator/agent"
	"github.com/sudocode/sudocode/internal/userenv"
)

// TrackerServerName is the name the tracker's MCP server has in an
// agent's MCP configuration (its tools show as mcp__sudocode__… in
// Claude Code, for instance).
const TrackerServerName = "sudocode"

// runSpec is the agent.RunSpec of a run of t in the checkout at top: in a
// repository with a tracker, when the orchestrator knows how to serve it
// (Options.Tracker),
// the agent gets the tracker's MCP server for the user's checkout, so
// that the feedback it gives and the issues it files land in the user's
// tracker at once, not on the task's branch.
func (o *Orchestrator) runSpec(t Task, top string, cfg map[string]any, instructions, resume string) agent.RunSpec {
	spec := agent.RunSpec{Instructions: instructions, Dir: t.WorktreePath, ResumeSession: resume, Config: cfg, ConfigDir: configDir(o.opts.Env, t.ID)}
	if len(o.opts.Tracker) == 0 {
		return spec
	}
	if _, err := os.Stat(filepath.Join(top, ".sudocode", "config.json")); err != nil {
		return spec
	}
	spec.MCPServers = []agent.MCPServer{{
		Name: TrackerServerName, Command: o.opts.Tracker[0], Args: o.opts.Tracker[1:],
		Env: map[string]string{"SUDOCODE_WORKING_DIR": top},
	}}
	return spec
}

// configDir is task id's directory for agent configuration files: outside
// the worktree (the agent would commit them), removed with the task's
// worktree, and in the cache directory of the user of env rather than the
// temporary one: Gemini CLI ignores a settings file below a directory
// that others may write, such as /tmp.
func configDir(env userenv.Env, id string) string {
	base, err := env.CacheDir()
	if err != nil {
		base = os.TempDir()
	}
	return filepath.Join(base, "sudocode", "agent-config", id)
}
