package mcpx

import (
	"fmt"
	"net"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// RefuseForeignHost answers 403 to a request that came in on a loopback
// connection under a Host that is not loopback: a page on a domain its
// owner points at 127.0.0.1 (DNS rebinding) would otherwise reach the
// local server with the browser's blessing. ServeHTTP wraps every handler
// it serves with it, so that no endpoint (an MCP server, /metrics, the
// dashboard, one added later) depends on remembering the check.
//
// Connections that are not loopback are not concerned: a server reachable
// from the network needs a bearer token, which a rebinding page lacks.
func RefuseForeignHost(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if onLoopback(r) && !IsLoopback(hostOnly(r.Host)) {
			writeRPCError(w, http.StatusForbidden, jsonrpc.CodeInvalidRequest,
				fmt.Sprintf("Forbidden: Host %q is not a loopback name (DNS rebinding protection); connect as 127.0.0.1, [::1] or localhost", r.Host), nil)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// onLoopback reports whether r arrived on a loopback address of this host.
func onLoopback(r *http.Request) bool {
	addr, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || addr == nil {
		return false
	}
	tcp, ok := addr.(*net.TCPAddr)
	return ok && tcp.IP.IsLoopback()
}

// hostOnly is the host of a Host header, without its port.
func hostOnly(hostport string) string {
	if host, _, err := net.SplitHostPort(hostport); err == nil {
		return host
	}
	return hostport
}
