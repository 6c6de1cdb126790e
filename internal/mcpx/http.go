package mcpx

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// CheckAddr refuses a non-loopback address unless t has a bearer token
// (its single token or its token file): a server that anyone on the
// network can drive must authenticate them.
func (t Transport) CheckAddr(addr string) error { return checkBind(addr, t.auth().Enabled()) }

// Tokens is the set of bearer tokens t accepts (its single token and its
// token file), nil when it needs none: what every server authenticates a
// request with, the coding tools' included.
func (t Transport) Tokens() *Auth { return t.auth() }

func checkBind(addr string, authenticated bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("invalid listen address %q: want host:port, e.g. 127.0.0.1:8080", addr)
	}
	if !authenticated && !IsLoopback(host) {
		return fmt.Errorf("refusing to listen on %s without a bearer token: bind 127.0.0.1, or set --token (or SUDOCODE_TOKEN; coding-tools-mcp also reads --auth-token and CODING_TOOLS_MCP_AUTH_TOKEN) or --token-file (or SUDOCODE_TOKEN_FILE)", addr)
	}
	return nil
}

// IsLoopback reports whether host (a name or an IP, without port) is a
// loopback address. An empty host means every interface and is not.
func IsLoopback(host string) bool {
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Handler serves s at Path with the shared hardening, outermost first: a
// bad Origin is 403, a missing or wrong bearer token 401, a body over the
// cap 413, a new session past t.Sessions' limits 429 or 503 (idle ones are
// closed after its idle timeout). The SDK's own DNS-rebinding protection
// stays on. It installs
// t's controls on s (Install): the caller of every request, and the rate
// limits, audit and metrics of tool calls; with metrics, it also answers
// Prometheus scrapes at MetricsPath, behind the same checks.
func Handler(s *mcp.Server, t Transport, logger *slog.Logger) http.Handler {
	Install(s, t)
	sessions := t.Sessions.orDefault()
	server := func(*http.Request) *mcp.Server { return s }
	stateful := mcp.NewStreamableHTTPHandler(server, &mcp.StreamableHTTPOptions{
		Logger:              SDKLogger(logger),
		SessionTimeout:      sessions.Limits().Idle,
		MaxRequestBodyBytes: t.bodyLimit(),
	})
	// A stateless request opens no session that outlives it, so it takes
	// no place among the session limits; rate limits and audit hold per
	// caller all the same.
	stateless := mcp.NewStreamableHTTPHandler(server, &mcp.StreamableHTTPOptions{
		Stateless:           true,
		Logger:              SDKLogger(logger),
		MaxRequestBodyBytes: t.bodyLimit(),
	})
	mcpHandler := refuseUnsupportedVersion(byRevision(limitSessions(stateful, s, sessions), stateless, t.Stateless))
	if t.auth().Enabled() {
		// The SDK hands a request's token info to the handlers of the
		// messages it carries (req.Extra.TokenInfo), and binds a session
		// to the user that opened it; Guard has checked the token.
		mcpHandler = auth.RequireBearerToken(func(_ context.Context, _ string, r *http.Request) (*auth.TokenInfo, error) {
			caller := CallerFrom(r.Context())
			if caller == "" {
				return nil, auth.ErrInvalidToken
			}
			return &auth.TokenInfo{UserID: caller}, nil
		}, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(mcpHandler)
	}
	mux := http.NewServeMux()
	mux.Handle(Path, mcpHandler)
	if m := t.Calls.metrics(); m != nil {
		m.WatchSessions(t.Name, func() int {
			n := 0
			for range s.Sessions() {
				n++
			}
			return n
		})
		mux.Handle(MetricsPath, m.Handler())
	}
	return Guard(mux, t)
}

// Guard wraps h with the Origin, token and body-size checks. A request
// with an accepted token reaches h with its caller in its context
// (CallerFrom), and its routing headers trimmed (TrimRoutingHeaders).
func Guard(h http.Handler, t Transport) http.Handler {
	limit := t.bodyLimit()
	a := t.auth()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if origin := r.Header.Get("Origin"); origin != "" && !OriginAllowed(origin, t.AllowedOrigins) {
			http.Error(w, "forbidden: origin "+origin+" is not allowed", http.StatusForbidden)
			return
		}
		if a.Enabled() {
			caller, ok := a.Authenticate(r)
			if !ok {
				w.Header().Set("WWW-Authenticate", `Bearer realm="sudocode"`)
				http.Error(w, "unauthorized: send Authorization: Bearer <token>", http.StatusUnauthorized)
				return
			}
			r = r.WithContext(WithCaller(r.Context(), caller))
		}
		if r.ContentLength > limit {
			http.Error(w, fmt.Sprintf("request body too large (limit %d bytes)", limit), http.StatusRequestEntityTooLarge)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, limit)
		TrimRoutingHeaders(r.Header)
		h.ServeHTTP(w, r)
	})
}
