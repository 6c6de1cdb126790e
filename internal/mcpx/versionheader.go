package mcpx

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// refuseUnsupportedVersion refuses a request whose MCP-Protocol-Version
// header names a revision the SDK does not speak, as the SDK would, but
// with a JSON-RPC error a client can show (the SDK answers plain text),
// carrying the request's id when its body has one (MCP 2026-07-28). Like
// the SDK, it leaves revisions from 2026-07-28 on to the handler, which
// answers them in their own terms.
func refuseUnsupportedVersion(h http.Handler) http.Handler {
	supported := mcp.SupportedProtocolVersions()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v := r.Header.Get(protocolVersionHeader)
		if v == "" || slices.Contains(supported, v) || v >= ModernProtocol {
			h.ServeHTTP(w, r)
			return
		}
		writeRPCErrorFor(w, bodyRequestID(r), http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "Unsupported MCP protocol version",
			map[string]any{"supported": supported, "requested": v})
	})
}

// bodyRequestID is the id of the one JSON-RPC request in r's body (read
// within the limits Guard set), nil when the body is not one request
// object or its id is neither a string nor an integer.
func bodyRequestID(r *http.Request) json.RawMessage {
	if r.Body == nil {
		return nil
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return nil
	}
	var msg struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(body, &msg) != nil || len(msg.ID) == 0 {
		return nil
	}
	var id any
	dec := json.NewDecoder(bytes.NewReader(msg.ID))
	dec.UseNumber()
	if dec.Decode(&id) != nil {
		return nil
	}
	switch v := id.(type) {
	case string:
		return msg.ID
	case json.Number:
		if _, err := v.Int64(); err == nil {
			return msg.ID
		}
	}
	return nil
}
