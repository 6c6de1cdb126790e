package mcpx

import (
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sessionIDHeader names the session a Streamable HTTP request belongs to.
const sessionIDHeader = "Mcp-Session-Id"

// limitSessions holds the SDK's sessions of s to sessions' limits. The
// SDK opens a session for every POST without a session id and keeps it
// until it is deleted or idle for StreamableHTTPOptions.SessionTimeout,
// with no limit of its own: here such a POST first takes a place for its
// client, and the place is given back when the session it opened ends (at
// once if it opened none, e.g. a failed initialize).
func limitSessions(h http.Handler, s *mcp.Server, sessions *Sessions) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Header.Get(sessionIDHeader) != "" {
			h.ServeHTTP(w, r)
			return
		}
		release, err := sessions.Open(CallerFrom(r.Context()))
		if err != nil {
			err.Write(w)
			return
		}
		h.ServeHTTP(w, r)
		id := w.Header().Get(sessionIDHeader)
		for ss := range s.Sessions() {
			if id != "" && ss.ID() == id {
				go func() {
					ss.Wait()
					release()
				}()
				return
			}
		}
		release()
	})
}
