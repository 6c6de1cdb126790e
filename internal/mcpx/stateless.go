package mcpx

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ModernProtocol is the first MCP revision without a session handshake:
// each request carries its protocol version, client and capabilities in
// its _meta (the HTTP header MCP-Protocol-Version repeats the version), a
// client learns the server with server/discover, and any instance may
// answer any request.
const ModernProtocol = "2026-07-28"

// protocolVersionHeader is the HTTP header a request's protocol version
// travels in (2025-06-18 and later).
const protocolVersionHeader = "Mcp-Protocol-Version"

// byRevision serves one endpoint in both styles the SDK knows: requests
// of 2026-07-28 and later go to stateless (which the SDK requires for
// them), the session handshake of older clients to stateful. A server run
// stateless sends every request to stateless: older clients are then
// served without a session too, each request on its own.
func byRevision(stateful, stateless http.Handler, allStateless bool) http.Handler {
	if allStateless {
		return stateless
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if modernRequest(r) {
			stateless.ServeHTTP(w, r)
			return
		}
		stateful.ServeHTTP(w, r)
	})
}

// modernRequest reports whether r belongs to 2026-07-28 or later: it
// names such a version in its header, or (a POST outside any session) its
// message is server/discover or carries a protocol version in its _meta.
// The body read here is put back for the handler.
func modernRequest(r *http.Request) bool {
	if v := r.Header.Get(protocolVersionHeader); v >= ModernProtocol {
		return true
	}
	if r.Method != http.MethodPost || r.Header.Get(sessionIDHeader) != "" || r.Body == nil {
		return false
	}
	body, err := io.ReadAll(r.Body)
	r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), errReader{err}))
	var msg struct {
		Method string `json:"method"`
		Params struct {
			Meta map[string]any `json:"_meta"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &msg) != nil {
		return false
	}
	_, versioned := msg.Params.Meta[mcp.MetaKeyProtocolVersion]
	return msg.Method == "server/discover" || versioned
}

// errReader returns err (io.EOF when nil): a body cut short (too large, or
// too slow) fails for the handler as it failed here.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	return 0, io.EOF
}
