package fleet

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"
)

// putPresence writes the worker's presence now.
func (wk *worker) putPresence(ctx context.Context) error {
	tasks := wk.tasks()
	p := Presence{
		ID: wk.w.ID, Host: wk.w.Host, Repos: wk.w.Repos, CLIs: wk.w.CLIs, Labels: wk.w.Labels,
		Slots: wk.w.Slots, Running: len(tasks), Tasks: tasks,
		Started: wk.started, Heartbeat: time.Now(), Version: wk.w.Version,
	}
	data, err := json.Marshal(p)
	if err != nil {
		return err
	}
	if _, err := wk.f.workers.Put(ctx, wk.w.ID, data); err != nil {
		return fmt.Errorf("fleet: worker %s: presence: %w", wk.w.ID, err)
	}
	return nil
}

// presenceLoop refreshes the presence every heartbeat, and at once when
// the running tasks change.
func (wk *worker) presenceLoop(ctx context.Context) {
	t := time.NewTicker(wk.f.o.Heartbeat)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-wk.kick:
		}
		if err := wk.putPresence(ctx); err != nil && ctx.Err() == nil {
			if wk.failed() {
				return
			}
			slog.Warn("fleet: presence", "worker", wk.w.ID, "err", err)
		}
	}
}
