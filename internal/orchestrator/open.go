package orchestrator

import (
	"context"

	"github.com/sudocode/sudocode/internal/orchestrator/agent"
)

// Open opens the orchestrator of the project in opts.Repo, with the real
// agent adapters, its task store in dataDir and its worktrees under
// opts.Worktrees (empty: $SUDOCODE_WORKTREES of opts.Env, else the
// project's setting or the default; see worktreeDir).
//
// Opening touches no worktree and runs no git worktree command, so that
// reading tasks (task list, task show) changes nothing and stays fast:
// the first Create sweeps the worktrees an earlier run left behind and
// collects those of finished tasks (see Sweep, GC), and the warm worktree
// (see pool) is checked out after it.
// closeFn stops every running agent (its whole process group) and closes
// the store.
func Open(ctx context.Context, dataDir string, opts Options) (o *Orchestrator, closeFn func(), err error) {
	store, err := OpenStore(ctx, dataDir)
	if err != nil {
		return nil, nil, err
	}
	if opts.Worktrees == "" {
		opts.Worktrees = opts.Env.Getenv(EnvWorktrees)
	}
	o = idle(store, lookupAdapter, opts)
	o.tidyFirst = true
	return o, func() { o.Close(); store.Close() }, nil
}

func lookupAdapter(kind string) (agent.Adapter, bool) {
	a, err := agent.Lookup(kind)
	return a, err == nil
}
