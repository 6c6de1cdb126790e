package mcpx

import (
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// The default session limits.
const (
	DefaultSessionsPerClient = 64
	DefaultSessions          = 1024
	DefaultSessionIdle       = 30 * time.Minute
)

// CodeTooManySessions is the JSON-RPC error code of a new session refused
// by a session limit (in the range JSON-RPC leaves to servers, next to
// CodeRateLimited).
const CodeTooManySessions = -32030

// SessionLimits bound the MCP sessions HTTP clients hold open: each one
// keeps server state (a few tens of kilobytes on the SDK's servers) until
// it is closed or idle too long.
type SessionLimits struct {
	PerClient int           // open sessions of one client; 0: DefaultSessionsPerClient
	Total     int           // open sessions in all; 0: DefaultSessions
	Idle      time.Duration // a session unused this long is closed; 0: DefaultSessionIdle
}

// Sessions counts the open sessions of the servers of one process against
// their limits; `sudocode serve` shares one between its four servers. A
// client is the caller its token names ("" without tokens: every local
// client is the same one).
type Sessions struct {
	limits   SessionLimits
	mu       sync.Mutex
	byClient map[string]int
	total    int
}

// NewSessions returns a count of sessions held to l (zero fields take the
// defaults).
func NewSessions(l SessionLimits) *Sessions {
	if l.PerClient <= 0 {
		l.PerClient = DefaultSessionsPerClient
	}
	if l.Total <= 0 {
		l.Total = DefaultSessions
	}
	if l.Idle <= 0 {
		l.Idle = DefaultSessionIdle
	}
	return &Sessions{limits: l, byClient: map[string]int{}}
}

// orDefault is s, or a count of its own with the default limits when s is
// nil.
func (s *Sessions) orDefault() *Sessions {
	if s == nil {
		return NewSessions(SessionLimits{})
	}
	return s
}

// Limits are the limits s holds sessions to.
func (s *Sessions) Limits() SessionLimits { return s.limits }

// Open takes a place for a new session of client, or says which limit is
// reached. release gives the place back; it may be called more than once.
func (s *Sessions) Open(client string) (release func(), err *SessionLimitError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.byClient[client] >= s.limits.PerClient:
		return nil, &SessionLimitError{Limit: "client", Max: s.limits.PerClient, Client: client, Idle: s.limits.Idle}
	case s.total >= s.limits.Total:
		return nil, &SessionLimitError{Limit: "total", Max: s.limits.Total, Client: client, Idle: s.limits.Idle}
	}
	s.byClient[client]++
	s.total++
	var once sync.Once
	return func() { once.Do(func() { s.close(client) }) }, nil
}

func (s *Sessions) close(client string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.total--
	if s.byClient[client]--; s.byClient[client] <= 0 {
		delete(s.byClient, client)
	}
}

// SessionLimitError is a new session refused by a limit.
type SessionLimitError struct {
	Limit  string // "client" (per client) or "total"
	Max    int
	Client string
	Idle   time.Duration
}

func (e *SessionLimitError) Error() string {
	if e.Limit == "client" {
		who := "this client"
		if e.Client != "" {
			who = "client " + strconv.Quote(e.Client)
		}
		return fmt.Sprintf("too many MCP sessions: %s already has %d open, the most one client may hold "+
			"(--max-sessions-per-client, SUDOCODE_MAX_SESSIONS_PER_CLIENT); end sessions you no longer use "+
			"(HTTP DELETE with their Mcp-Session-Id; closing an MCP client does it), reuse one, or wait: a session unused for %v is closed",
			who, e.Max, e.Idle)
	}
	return fmt.Sprintf("too many MCP sessions: the server holds %d, its limit (--max-sessions, SUDOCODE_MAX_SESSIONS); "+
		"retry later (a session unused for %v is closed), or ask its operator to raise the limit", e.Max, e.Idle)
}

// Status is the HTTP status a refused request is answered with: 429 when
// the client holds too many, 503 when the server does.
func (e *SessionLimitError) Status() int {
	if e.Limit == "client" {
		return http.StatusTooManyRequests
	}
	return http.StatusServiceUnavailable
}

// Write answers the request that asked for the session.
func (e *SessionLimitError) Write(w http.ResponseWriter) {
	w.Header().Set("Retry-After", "60")
	writeRPCError(w, e.Status(), CodeTooManySessions, e.Error(), map[string]any{
		"limit": e.Limit, "max": e.Max, "idle_timeout_s": int(e.Idle.Seconds()),
	})
}
