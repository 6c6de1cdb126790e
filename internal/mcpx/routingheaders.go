package mcpx

import (
	"net/http"
	"strings"
)

// routingHeaders repeat a 2026-07-28 request's method and the name it
// acts on (a tool, a prompt, a resource) for the proxies on its way
// (SEP-2243); a server checks them against the message.
var routingHeaders = []string{"Mcp-Method", "Mcp-Name"}

// TrimRoutingHeaders removes the whitespace around the values of h's
// routing headers, so that they are compared with the message as HTTP
// reads a field's value: whitespace around it is not part of it. Go's
// HTTP/1 server trims spaces and tabs itself; a request handed over by
// another front end may keep them, and other whitespace.
func TrimRoutingHeaders(h http.Header) {
	for _, k := range routingHeaders {
		vs := h[http.CanonicalHeaderKey(k)]
		for i, v := range vs {
			vs[i] = strings.TrimSpace(v)
		}
	}
}
