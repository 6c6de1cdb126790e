package mcpagent

import (
	"context"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/orchestrator"
)

// follow keeps a tool call open while task t's agent runs, sending a
// progress notification for each batch of new log events (progress is the
// number of events so far; the message is the newest one). It returns the
// task once the agent stopped, or as it stands when the call is cancelled:
// cancelling the call stops the following, not the agent.
func (h *handlers) follow(ctx context.Context, ss *mcp.ServerSession, token any, t orchestrator.Task) orchestrator.Task {
	var lastSeq atomic.Int64
	wake := make(chan struct{}, 1)
	unsubscribe := h.tasks.Subscribe(func(c orchestrator.Change) {
		if c.Task.ID != t.ID {
			return
		}
		if c.Kind == orchestrator.ChangeLog {
			lastSeq.Store(c.LastSeq)
		}
		select {
		case wake <- struct{}{}:
		default:
		}
	})
	defer unsubscribe()
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		_ = h.tasks.Wait(ctx, t.ID)
	}()
	var sent int64
	notify := func() {
		seq := lastSeq.Load()
		if seq <= sent {
			return
		}
		msg := ""
		if evs, err := h.tasks.Logs(ctx, t.ID, seq-1, 1); err == nil && len(evs) == 1 {
			msg = eventSummary(evs[0].Event, 200)
		}
		sent = seq
		_ = ss.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(seq), Message: msg})
	}
wait:
	for {
		select {
		case <-wake:
			notify()
		case <-stopped:
			break wait
		}
	}
	notify()
	if cur, err := h.tasks.Get(context.WithoutCancel(ctx), t.ID); err == nil {
		t = cur
	}
	if ctx.Err() == nil {
		_ = ss.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
			ProgressToken: token, Progress: float64(sent + 1), Total: float64(sent + 1),
			Message: "task " + t.ID + " is " + string(t.Status),
		})
	}
	return t
}
