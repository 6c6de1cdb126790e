package orchestrator

import (
	"context"
	"os"

	"github.com/sudocode/sudocode/internal/orchestrator/agent"
)

// Open opens the orchestrator of the project in dir, with the real agent
// adapters, its task store in dataDir and its worktrees under worktrees
// (empty: $SUDOCODE_WORKTREES, else the project's setting or the default;
// see worktreeDir), sweeps the worktrees an earlier run left behind and
// collects those of finished tasks (see GC).
// closeFn stops every running agent (its whole process group) and closes
// the store.
func Open(ctx context.Context, dir, dataDir, actor, worktrees string) (o *Orchestrator, closeFn func(), err error) {
	store, err := OpenStore(ctx, dataDir)
	if err != nil {
		return nil, nil, err
	}
	if worktrees == "" {
		worktrees = os.Getenv(EnvWorktrees)
	}
	o = New(store, lookupAdapter, Options{Repo: dir, Actor: actor, Worktrees: worktrees})
	_, _ = o.Sweep(ctx)
	_, _ = o.GC(ctx) // worktrees of tasks that finished before the restart
	return o, func() { o.Close(); store.Close() }, nil
}

func lookupAdapter(kind string) (agent.Adapter, bool) {
	a, err := agent.Lookup(kind)
	return a, err == nil
}
