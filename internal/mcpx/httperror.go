package mcpx

import (
	"encoding/json"
	"net/http"
)

// writeRPCError answers a request refused before any server read it with
// an HTTP status and a JSON-RPC error whose id is null (the request was
// not parsed), so that an MCP client shows the message to its user.
func writeRPCError(w http.ResponseWriter, status, code int, message string, data any) {
	writeRPCErrorFor(w, nil, status, code, message, data)
}

// writeRPCErrorFor is writeRPCError for the request whose id is id (nil:
// null), for a refusal that read the request.
func writeRPCErrorFor(w http.ResponseWriter, id json.RawMessage, status, code int, message string, data any) {
	e := map[string]any{"code": code, "message": message}
	if data != nil {
		e["data"] = data
	}
	var rawID any
	if id != nil {
		rawID = id
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": rawID, "error": e})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	w.Write(append(body, '\n'))
}
