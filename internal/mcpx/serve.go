package mcpx

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/fault"
)

// Transport says how a server is reached (stdio when HTTPAddr is empty)
// and what its calls go through.
type Transport struct {
	HTTPAddr       string   // host:port for Streamable HTTP; port 0 picks a free one
	Token          string   // bearer token; required before any non-loopback bind
	AllowedOrigins []string // browser origins allowed besides loopback ones
	MaxBodyBytes   int64    // cap on a request body; 0 is DefaultMaxBodyBytes
	// BodyTimeout is how long a request body may take to arrive; 0 is
	// DefaultBodyTimeout.
	BodyTimeout time.Duration
	// Sessions holds the MCP sessions to their limits; shared by servers
	// in one process. nil: a count of the server's own, default limits.
	Sessions *Sessions

	// Name is the server's name in audit lines and metrics: tracker,
	// rulesets, coding or agent.
	Name string
	// Caller is who calls are made by when no token names the caller: on
	// stdio, and over HTTP without tokens (the local user).
	Caller string
	// Auth is the accepted bearer tokens (the single one and a token
	// file); when nil, Token alone is.
	Auth *Auth
	// Calls audits, rate-limits and measures tool calls; nil does none.
	Calls *Calls
	// Stateless serves every HTTP request on its own, without an
	// Mcp-Session-Id (older clients' included), so that any of several
	// instances behind a load balancer can answer any request. Without
	// it, requests of 2026-07-28 and later are served that way and older
	// clients get sessions.
	Stateless bool
	// In and Out are the stdio transport's streams; nil: the process's
	// standard input and output. A command run in-process names its own.
	In  io.Reader
	Out io.Writer
}

// auth is the tokens t accepts; nil when it needs none.
func (t Transport) auth() *Auth {
	if t.Auth != nil {
		return t.Auth
	}
	if t.Token != "" {
		a, _ := NewAuth(t.Token, "", nil)
		return a
	}
	return nil
}

// metrics is c's metrics, nil when there are none.
func (c *Calls) metrics() *Metrics {
	if c == nil {
		return nil
	}
	return c.Metrics
}

// DefaultMaxBodyBytes caps an HTTP request body.
const DefaultMaxBodyBytes = 4 << 20

func (t Transport) bodyLimit() int64 {
	if t.MaxBodyBytes > 0 {
		return t.MaxBodyBytes
	}
	return DefaultMaxBodyBytes
}

// Path is where the Streamable HTTP endpoint is served.
const Path = "/mcp"

// Serve runs s until ctx ends (SIGINT/SIGTERM in the binaries) or, on
// stdio, until the client closes standard input.
func Serve(ctx context.Context, s *mcp.Server, t Transport, logger *slog.Logger) error {
	if t.HTTPAddr == "" {
		Install(s, t)
		in, out := t.In, t.Out
		if in == nil || out == nil {
			in, out = os.Stdin, os.Stdout
		}
		err := s.Run(ctx, NewStdioTransport(in, out, logger))
		if errors.Is(err, context.Canceled) || errors.Is(err, mcp.ErrConnectionClosed) {
			return nil
		}
		return err
	}
	ln, err := Listen(t)
	if err != nil {
		return err
	}
	logger.Info("serving MCP over Streamable HTTP", "url", "http://"+ln.Addr().String()+Path)
	return ServeHTTP(ctx, ln, Handler(s, t, logger), t.BodyTimeout, logger)
}

// Listen checks the bind against the security defaults and opens it.
func Listen(t Transport) (net.Listener, error) {
	if err := t.CheckAddr(t.HTTPAddr); err != nil {
		return nil, err
	}
	return ListenTCP(t.HTTPAddr)
}

// ListenTCP opens addr; an address in use is an invalid argument with a
// hint, said once.
func ListenTCP(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if errors.Is(err, syscall.EADDRINUSE) {
		return nil, fault.New(fault.Invalid, "cannot listen on %s: the address is already in use (another server?)", addr).
			WithHint("choose another port, or port 0 for a free one (e.g. 127.0.0.1:0): the address in use is printed at start")
	}
	if err != nil {
		return nil, fault.Wrap(fault.Unavailable, err, "cannot listen on "+addr)
	}
	return ln, nil
}

// drainTimeout is how long a shutdown waits for the requests in flight.
const drainTimeout = 5 * time.Second

// drainCutShort is the warning of a shutdown whose requests outlived
// drainTimeout: their connections were closed under them.
const drainCutShort = "requests were still running when the shutdown's wait ended; their connections were closed"

// ServeHTTP serves h on ln until ctx ends, then drains requests for a few
// seconds before closing. Every request goes through RefuseForeignHost
// first, and a request body has bodyTimeout to arrive (0 is
// DefaultBodyTimeout). Streams a client holds open with GET (the
// standalone SSE stream) never drain by themselves: they are ended as soon
// as the shutdown starts, so a connected client does not delay it.
func ServeHTTP(ctx context.Context, ln net.Listener, h http.Handler, bodyTimeout time.Duration, logger *slog.Logger) error {
	streams, endStreams := context.WithCancel(context.Background())
	defer endStreams()
	srv := &http.Server{
		Handler:           RefuseForeignHost(limitBodyTime(endGETOn(streams, h), bodyTimeout)),
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	srv.RegisterOnShutdown(endStreams)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), drainTimeout)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		logger.Warn(drainCutShort, "drain", drainTimeout, "err", err)
		srv.Close()
	}
	return nil
}

// endGETOn cancels the context of every GET request served by h when stop
// ends; other requests keep theirs, so that they can complete.
func endGETOn(stop context.Context, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			h.ServeHTTP(w, r)
			return
		}
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		defer context.AfterFunc(stop, cancel)()
		h.ServeHTTP(w, r.WithContext(ctx))
	})
}
