package mcpx

import (
	"crypto/subtle"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// CheckBind refuses a non-loopback address unless a bearer token is set:
// a server that anyone on the network can drive must authenticate them.
func CheckBind(addr, token string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("invalid listen address %q: want host:port, e.g. 127.0.0.1:8080", addr)
	}
	if token == "" && !IsLoopback(host) {
		return fmt.Errorf("refusing to listen on %s without a bearer token: bind 127.0.0.1, or set --token (or SUDOCODE_TOKEN)", addr)
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
// cap 413. The SDK's own DNS-rebinding protection stays on.
func Handler(s *mcp.Server, t Transport, logger *slog.Logger) http.Handler {
	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{
		Logger:              SDKLogger(logger),
		SessionTimeout:      30 * time.Minute,
		MaxRequestBodyBytes: t.bodyLimit(),
	})
	mux := http.NewServeMux()
	mux.Handle(Path, mcpHandler)
	return Guard(mux, t)
}

// Guard wraps h with the Origin, token and body-size checks.
func Guard(h http.Handler, t Transport) http.Handler {
	limit := t.bodyLimit()
	want := []byte("Bearer " + t.Token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if origin := r.Header.Get("Origin"); origin != "" && !originAllowed(origin, t.AllowedOrigins) {
			http.Error(w, "forbidden: origin "+origin+" is not allowed", http.StatusForbidden)
			return
		}
		if t.Token != "" && subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="sudocode"`)
			http.Error(w, "unauthorized: send Authorization: Bearer <token>", http.StatusUnauthorized)
			return
		}
		if r.ContentLength > limit {
			http.Error(w, fmt.Sprintf("request body too large (limit %d bytes)", limit), http.StatusRequestEntityTooLarge)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, limit)
		h.ServeHTTP(w, r)
	})
}

// originAllowed accepts loopback origins (a local tool's own page) and the
// configured ones; browsers send Origin, other clients usually do not.
func originAllowed(origin string, allowed []string) bool {
	if slices.Contains(allowed, origin) {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	return IsLoopback(u.Hostname())
}
