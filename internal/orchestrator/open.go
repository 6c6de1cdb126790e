package orchestrator

import (
	"context"

	"github.com/sudocode/sudocode/internal/orchestrator/agent"
)

// Open opens the orchestrator of the project in dir, with the real agent
// adapters and its task store in dataDir, and sweeps the worktrees an
// earlier run left behind. closeFn stops every running agent (its whole
// process group) and closes the store.
func Open(ctx context.Context, dir, dataDir, actor string) (o *Orchestrator, closeFn func(), err error) {
	store, err := OpenStore(ctx, dataDir)
	if err != nil {
		return nil, nil, err
	}
	o = New(store, lookupAdapter, Options{Repo: dir, Actor: actor})
	_, _ = o.Sweep(ctx)
	return o, func() { o.Close(); store.Close() }, nil
}

func lookupAdapter(kind string) (agent.Adapter, bool) {
	a, err := agent.Lookup(kind)
	return a, err == nil
}
