package mcpcoding

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/sudocode/sudocode/internal/mcpx"
)

// MCP 2026-07-28 has no handshake: every request carries its protocol version
// (with the client's name and capabilities) in its _meta, and a client learns
// the server with server/discover. The profile's rules
// (docs/coding-tools.md#protocol-versions: initialize, negotiating down to
// 2025-06-18) stay as they are for the clients that shake hands; a request that
// names 2026-07-28 is served on its own, with no session and no initialize, as
// the reference server serves it; the SDK serves it so. What stays here are
// the checks of its _meta, which the SDK words and codes otherwise, and of
// its HTTP headers, which the SDK makes in its own HTTP handler only.

// JSON-RPC error codes of 2026-07-28.
const (
	codeHeaderMismatch     = -32020 // the HTTP header and the message disagree
	codeUnsupportedVersion = -32022 // a protocol version the server does not speak
)

// The _meta keys of a 2026-07-28 request.
const (
	metaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
)

type httpHeadersKey struct{}

// httpHeaders are the headers of an HTTP request that a 2026-07-28
// request must carry and match its message with: MCP-Protocol-Version,
// Mcp-Method, and Mcp-Name (the tool a tools/call calls).
type httpHeaders struct{ version, method, name string }

// withHTTPHeaders marks ctx as an HTTP request's, with its headers.
func withHTTPHeaders(ctx context.Context, h http.Header) context.Context {
	mcpx.TrimRoutingHeaders(h)
	return context.WithValue(ctx, httpHeadersKey{}, &httpHeaders{
		version: h.Get("MCP-Protocol-Version"), method: h.Get("Mcp-Method"), name: h.Get("Mcp-Name")})
}

// checkHeaders refuses a 2026-07-28 request over HTTP whose Mcp-Method
// (or, for tools/call, Mcp-Name) header is missing or differs from its
// message: a proxy routes by the headers, the server acts on the body.
func checkHeaders(ctx context.Context, method string, params json.RawMessage) *response {
	h, overHTTP := ctx.Value(httpHeadersKey{}).(*httpHeaders)
	if !overHTTP {
		return nil
	}
	if h.method != method {
		return errorResponse(nil, codeHeaderMismatch, fmt.Sprintf("Header mismatch: Mcp-Method must be the message's method %q, got %q", method, h.method), nil)
	}
	if method != "tools/call" {
		return nil
	}
	var p struct {
		Name string `json:"name"`
	}
	json.Unmarshal(orEmpty(params), &p)
	if h.name != p.Name {
		return errorResponse(nil, codeHeaderMismatch, fmt.Sprintf("Header mismatch: Mcp-Name must be the tool's name %q, got %q", p.Name, h.name), nil)
	}
	return nil
}

// checkModern reports whether a request is of 2026-07-28 (its _meta names
// a protocol version, or over HTTP its header names 2026-07-28), and
// refuses one whose _meta lacks what that revision requires: the
// protocol version, equal to the header's, one the server speaks, and the
// client's capabilities.
func checkModern(ctx context.Context, params json.RawMessage) (bool, *response) {
	var p struct {
		Meta map[string]any `json:"_meta"`
	}
	json.Unmarshal(orEmpty(params), &p)
	raw, named := p.Meta[metaProtocolVersion]
	h, overHTTP := ctx.Value(httpHeadersKey{}).(*httpHeaders)
	var header *string
	if overHTTP {
		header = &h.version
	}
	if !named && !(overHTTP && *header == mcpx.ModernProtocol) {
		return false, nil
	}
	v, _ := raw.(string)
	if v == "" {
		return true, errorResponse(nil, codeInvalidParams, "Invalid params: a "+mcpx.ModernProtocol+" request carries its protocol version in _meta."+metaProtocolVersion, nil)
	}
	if overHTTP && *header != v {
		return true, errorResponse(nil, codeHeaderMismatch, "Header mismatch: MCP-Protocol-Version ("+*header+") must repeat _meta."+metaProtocolVersion+" ("+v+")", nil)
	}
	if v != mcpx.ModernProtocol {
		return true, errorResponse(nil, codeUnsupportedVersion, "Unsupported MCP protocol version",
			map[string]any{"supported": supportedVersions, "requested": v})
	}
	if _, ok := p.Meta[metaClientCapabilities].(map[string]any); !ok {
		return true, errorResponse(nil, codeInvalidParams, "Invalid params: a "+mcpx.ModernProtocol+" request carries the client's capabilities in _meta."+metaClientCapabilities+" ({} for none)", nil)
	}
	return true, nil
}

// statusOf2026 is the HTTP status of a JSON-RPC error answering a
// 2026-07-28 request: a method the server does not have is a 404, a
// request it cannot take as sent a 400; a tool's own failure is a result,
// not an error, and other errors keep the profile's 200.
func statusOf2026(code int) int {
	switch code {
	case codeNoMethod:
		return http.StatusNotFound
	case codeParse, codeInvalidRequest, codeInvalidParams, codeHeaderMismatch, codeUnsupportedVersion:
		return http.StatusBadRequest
	}
	return http.StatusOK
}
