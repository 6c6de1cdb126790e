package mcpagent

import (
	"context"
	"log/slog"
	"time"

	"github.com/sudocode/sudocode/internal/orchestrator"
)

// peerPoll is how often a server sharing its task database looks for the
// changes other processes made to it.
const peerPoll = time.Second

// watchPeers follows the changes other processes make to the task
// database: several instances on one database (run --stateless behind a
// load balancer) each start and end agents of their own, and a client
// subscribed on one must hear of the others' tasks too. Every peerPoll it
// compares each task (and a running task's last log sequence) with what
// it saw before and hands each difference to w as a change of this
// process. Its own changes come twice, which is harmless: an update only
// tells subscribers to read again, and w coalesces bursts.
// It returns when ctx ends.
func watchPeers(ctx context.Context, orch *orchestrator.Orchestrator, w *watcher, logger *slog.Logger) {
	type seen struct {
		updated time.Time
		seq     int64
	}
	last := map[string]seen{}
	// The first look, at once, is what the others had done before this
	// server started: it is the baseline, not news.
	first := true
	tick := time.NewTicker(peerPoll)
	defer tick.Stop()
	for looked := false; ; looked = true {
		if looked {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
		tasks, err := orch.List(ctx)
		if err != nil {
			logger.Debug("cannot read the task database for other instances' changes", "err", err)
			continue
		}
		for _, t := range tasks {
			now := seen{updated: t.UpdatedAt}
			if t.Running() {
				now.seq, _ = orch.LastSeq(ctx, t.ID)
			}
			before, known := last[t.ID]
			last[t.ID] = now
			switch {
			case first:
			case !known || !before.updated.Equal(now.updated):
				w.changed(orchestrator.Change{Kind: orchestrator.ChangeUpdated, Task: t})
			case before.seq != now.seq:
				w.changed(orchestrator.Change{Kind: orchestrator.ChangeLog, Task: t, LastSeq: now.seq})
			}
		}
		first = false
	}
}
