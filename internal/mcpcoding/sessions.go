package mcpcoding

import (
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/mcpx"
)

// httpSession is one client's logical session over HTTP. The profile has
// one per process, which every client shares; with a token file naming
// several clients, each client has its own (its own id, initialized flag
// and log level), so that a session answers only the client it belongs
// to, as on the other servers. Without named clients there is a single
// client, and so the profile's single session.
type httpSession struct {
	id     string
	client string
	pipe   *pipe
}

// httpSessions are the sessions by client and by id. A client has one
// session at most, so their number is bounded by the clients a token file
// names; each counts toward the shared limits (mcpx.Sessions), and a new
// one past them is refused. They are not closed when idle: the profile
// fixes the session id for the life of the process.
type httpSessions struct {
	sdk      *mcp.Server
	limits   *mcpx.Sessions
	mu       sync.Mutex
	byClient map[string]*httpSession
	byID     map[string]*httpSession
}

func newHTTPSessions(limits *mcpx.Sessions, sdk *mcp.Server) *httpSessions {
	if limits == nil {
		limits = mcpx.NewSessions(mcpx.SessionLimits{})
	}
	return &httpSessions{sdk: sdk, limits: limits, byClient: map[string]*httpSession{}, byID: map[string]*httpSession{}}
}

// of is client's session, opened on the client's first request.
func (h *httpSessions) of(client string) (*httpSession, *mcpx.SessionLimitError) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if s := h.byClient[client]; s != nil {
		return s, nil
	}
	if _, err := h.limits.Open(client); err != nil {
		return nil, err
	}
	s := &httpSession{id: newSessionID(), client: client, pipe: connect(h.sdk, nil)}
	h.byClient[client] = s
	h.byID[s.id] = s
	return s, nil
}

// find is the session with id; nil when there is none.
func (h *httpSessions) find(id string) *httpSession {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.byID[id]
}

// initialized is the number of sessions a client has initialized.
func (h *httpSessions) initialized() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, s := range h.byClient {
		if s.pipe.initialized.Load() {
			n++
		}
	}
	return n
}

// close ends every session's SDK session.
func (h *httpSessions) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, s := range h.byClient {
		s.pipe.Close()
	}
}
