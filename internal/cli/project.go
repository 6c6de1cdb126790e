package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"

	"github.com/sudocode/sudocode/internal/app"
	"github.com/sudocode/sudocode/internal/orchestrator"
	"github.com/sudocode/sudocode/internal/rulesets"
)

// openTasks opens the project in dir (default env's working directory)
// with its tasks, as every task command and "sudocode mcp agent" do
// (app.Open): the task store in dataDir (default <git common
// dir>/sudocode, or outside a git repository a per-project directory in
// the user cache: "sudocode mcp agent" still starts there, and create_task
// explains), the worktrees under worktrees, and rules (nil: none) for the
// prompts of tasks started from issues. Leftover worktrees of an earlier
// run are swept. Close stops every running agent and closes the stores
// (not rules).
func openTasks(ctx context.Context, env IO, dir, dataDir, worktrees string, rules rulesets.Store) (*app.Project, error) {
	dir, err := app.ProjectDir(dir, env.Dir)
	if err != nil {
		return nil, err
	}
	if dataDir == "" {
		dataDir = defaultAgentData(ctx, dir, env)
	}
	p, err := app.Open(ctx, app.Options{Dir: dir, WorkDir: env.Dir, Env: env.Env, Actor: env.actor(), Rulesets: rules,
		Tasks: true, TaskData: env.path(dataDir), Worktrees: env.path(env.orEnv(worktrees, orchestrator.EnvWorktrees)), TrackerCommand: env.trackerCommand()})
	if err != nil {
		return nil, err
	}
	if _, err := p.Tasks(); err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

// trackerCommand is the tracker's MCP server that agents get, for the
// tracker of their repository: the sudocode binary's "mcp"; nil when the
// binary is not known (see IO.Executable).
func (s IO) trackerCommand() []string {
	if s.Executable == "" {
		return nil
	}
	return []string{s.Executable, "mcp"}
}

// defaultAgentData is orchestrator.DataDir (where sudocode serve keeps the
// same repository's tasks), or outside a repository a directory in the
// cache of env's user named after dir.
func defaultAgentData(ctx context.Context, dir string, env IO) string {
	if data, err := orchestrator.DataDir(ctx, dir); err == nil {
		return data
	}
	base, err := env.Env.CacheDir()
	if err != nil {
		base = os.TempDir()
	}
	sum := sha256.Sum256([]byte(dir))
	return filepath.Join(base, "sudocode", "agent", hex.EncodeToString(sum[:8]))
}
