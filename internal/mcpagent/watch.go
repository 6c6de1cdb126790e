package mcpagent

import (
	"context"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/orchestrator"
)

// watch turns orch's task changes into notifications/resources/updated
// for every resource a change affects. The orchestrator calls back
// synchronously, so changes only mark URIs here; one goroutine sends them,
// coalescing a burst of log batches into one update per URI. The SDK sends
// each update only to the sessions subscribed to that URI. stop ends it.
func watch(orch *orchestrator.Orchestrator, s *mcp.Server) *watcher {
	w := &watcher{project: projectURI(orch.Repo()), pending: map[string]struct{}{}, wake: make(chan struct{}, 1),
		done: make(chan struct{}), sent: make(chan struct{})}
	w.unsubscribe = orch.Subscribe(w.changed)
	go w.send(s)
	return w
}

type watcher struct {
	project     string // this project's project://…/status
	mu          sync.Mutex
	pending     map[string]struct{}
	wake        chan struct{}
	unsubscribe func()
	done        chan struct{} // closed by stop
	sent        chan struct{} // closed when send returns
}

// stop stops following the tasks and waits for the sender to return.
func (w *watcher) stop() {
	w.unsubscribe()
	close(w.done)
	<-w.sent
}

func (w *watcher) changed(c orchestrator.Change) {
	t := c.Task
	uris := []string{taskURI(t.ID)}
	if c.Kind == orchestrator.ChangeLog {
		uris = append(uris, logsURI(t.ID))
	} else {
		uris = append(uris, resultURI(t.ID), uriTaskList, uriTasks, uriStatus, w.project, branchURI(t.Branch))
		if t.SessionID != "" {
			uris = append(uris, sessionURI(t.Agent, t.SessionID))
		}
	}
	w.mu.Lock()
	for _, u := range uris {
		w.pending[u] = struct{}{}
	}
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

func (w *watcher) send(s *mcp.Server) {
	defer close(w.sent)
	ctx := context.Background()
	for {
		select {
		case <-w.done:
			return
		case <-w.wake:
		}
		w.mu.Lock()
		batch := w.pending
		w.pending = make(map[string]struct{}, len(batch))
		w.mu.Unlock()
		for uri := range batch {
			_ = s.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri})
		}
	}
}
