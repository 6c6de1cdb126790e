package mcpx

import (
	"net/http"
	"time"
)

// DefaultBodyTimeout is how long a client has to send a request body once
// its headers are in.
const DefaultBodyTimeout = 30 * time.Second

// limitBodyTime gives the body of each request d to arrive, counted from
// when h is called, so that a client sending a byte now and then cannot
// hold a connection and its buffers for ever. http.Server.ReadTimeout
// cannot do it: it would also end the long-lived GET streams (SSE). Here
// only requests with a body get a read deadline, and net/http lifts it
// when the body has been read to its end (it then reads the connection in
// the background to notice a client going away), so the handler's work
// after that (a tool call may run for minutes) is not bounded by it.
func limitBodyTime(h http.Handler, d time.Duration) http.Handler {
	if d <= 0 {
		d = DefaultBodyTimeout
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody {
			http.NewResponseController(w).SetReadDeadline(time.Now().Add(d))
		}
		h.ServeHTTP(w, r)
	})
}
