package mcpcoding

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// pipe is one logical session of the profile, connected to the SDK's
// server as an mcp.Transport of its own: the front (front.go) hands it
// each message that passed the profile's checks and gets the SDK's answer
// back. It exists because the profile's sessions are not the SDK
// transports' (one session shared by every HTTP client of the process,
// requests on one stdio line run concurrently, batches), so no SDK
// transport can carry them; the SDK still dispatches every message.
//
// Requests go to the SDK under an id of the pipe's own, and their
// answers are matched back to the caller by it: the clients sharing the
// session may reuse each other's ids.
type pipe struct {
	// initialized is the profile's gate (-32002 before initialize): set
	// when an initialize of this session succeeds.
	initialized atomic.Bool
	in          chan jsonrpc.Message
	done        chan struct{}
	closeOnce   sync.Once
	lastID      atomic.Int64
	mu          sync.Mutex
	waiting     map[int64]chan *jsonrpc.Response
}

// connect opens a pipe to srv; with state, the SDK's session starts
// initialized (a stateless server's, where no request waits for an
// initialize another instance may have answered).
func connect(srv *mcp.Server, state *mcp.ServerSessionState) *pipe {
	p := &pipe{in: make(chan jsonrpc.Message), done: make(chan struct{}), waiting: map[int64]chan *jsonrpc.Response{}}
	// Connect fails only when the transport's Connect does, which this
	// one's never does.
	srv.Connect(context.Background(), p, &mcp.ServerSessionOptions{State: state})
	return p
}

// Connect is the mcp.Transport the SDK's server is connected through.
func (p *pipe) Connect(context.Context) (mcp.Connection, error) { return p, nil }

// Read hands the SDK the next message.
func (p *pipe) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case m := <-p.in:
		return m, nil
	case <-p.done:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Write takes the SDK's answer to a request. The profile's server sends
// the client nothing else (no notifications, no requests), so the SDK's
// own messages to the client are dropped.
func (p *pipe) Write(_ context.Context, m jsonrpc.Message) error {
	r, ok := m.(*jsonrpc.Response)
	if !ok {
		return nil
	}
	id, _ := r.ID.Raw().(int64)
	p.mu.Lock()
	ch := p.waiting[id]
	delete(p.waiting, id)
	p.mu.Unlock()
	if ch != nil {
		ch <- r
	}
	return nil
}

// Close ends the SDK's session.
func (p *pipe) Close() error {
	p.closeOnce.Do(func() { close(p.done) })
	return nil
}

// SessionID is none: the profile's session ids are the front's.
func (p *pipe) SessionID() string { return "" }

// call sends a request to the SDK and waits for its answer. When ctx ends
// first (the HTTP client went away), the SDK is told to cancel it and the
// answer, nil, is not waited for.
func (p *pipe) call(ctx context.Context, method string, params json.RawMessage, extra *mcp.RequestExtra) (*jsonrpc.Response, error) {
	n := p.lastID.Add(1)
	ch := make(chan *jsonrpc.Response, 1)
	p.mu.Lock()
	p.waiting[n] = ch
	p.mu.Unlock()
	id, _ := jsonrpc.MakeID(float64(n)) // a float64 is always a valid id
	if err := p.send(ctx, &jsonrpc.Request{ID: id, Method: method, Params: params, Extra: extra}); err != nil {
		return nil, err
	}
	select {
	case r := <-ch:
		return r, nil
	case <-p.done:
		return nil, errPipeClosed
	case <-ctx.Done():
		cancel, _ := json.Marshal(map[string]any{"requestId": n, "reason": "the client went away"})
		p.notify(context.Background(), "notifications/cancelled", cancel, nil)
		return nil, ctx.Err()
	}
}

// notify sends the SDK a notification.
func (p *pipe) notify(ctx context.Context, method string, params json.RawMessage, extra *mcp.RequestExtra) {
	p.send(ctx, &jsonrpc.Request{Method: method, Params: params, Extra: extra})
}

var errPipeClosed = errors.New("the session is closed")

func (p *pipe) send(ctx context.Context, m *jsonrpc.Request) error {
	select {
	case p.in <- m:
		return nil
	case <-p.done:
		return errPipeClosed
	case <-ctx.Done():
		return ctx.Err()
	}
}
