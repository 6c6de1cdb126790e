package mcpcoding

import (
	"bytes"
	"encoding/json"
	"regexp"
	"slices"
	"sync"
)

// checkParams applies the profile's checks of a method's params that the
// SDK cannot make: its decoder refuses a value of the wrong type before
// any middleware sees the request, with its own wording, where the
// profile answers -32602 with a reason; and for initialize it negotiates
// down to ProtocolVersion, where the SDK would answer any version it
// knows. It returns the params to hand the SDK.
func checkParams(method string, params json.RawMessage) (json.RawMessage, *response) {
	switch method {
	case "initialize":
		return initializeParams(params)
	case "logging/setLevel":
		var p struct {
			Level any `json:"level"`
		}
		json.Unmarshal(params, &p)
		if level, _ := p.Level.(string); !slices.Contains(logLevels, level) {
			return nil, errorResponse(nil, codeInvalidParams, "Invalid params: unsupported logging level",
				map[string]any{"supported": logLevels, "received": p.Level})
		}
	case "tools/list":
		var p struct {
			Cursor any `json:"cursor"`
		}
		json.Unmarshal(params, &p)
		if p.Cursor != nil {
			return nil, errorResponse(nil, codeInvalidParams, "Invalid params: invalid cursor (tools/list has one page)", nil)
		}
	case "tools/call":
		var p struct {
			Name      json.RawMessage `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		}
		json.Unmarshal(params, &p)
		// null unmarshals into a string without error: only a JSON
		// string names a tool.
		if raw := bytes.TrimSpace(p.Name); len(raw) == 0 || raw[0] != '"' {
			return nil, errorResponse(nil, codeInvalidParams, "Invalid params: tools/call needs a string name", nil)
		}
		// The shape of arguments is checked before the name is looked up
		// (docs/coding-tools.md#results, steps 1 and 2), which the SDK
		// does first.
		if raw := bytes.TrimSpace(p.Arguments); len(raw) > 0 && string(raw) != "null" && raw[0] != '{' {
			return nil, errorResponse(nil, codeInvalidParams, "Invalid params: arguments must be an object", nil)
		}
	}
	return params, nil
}

var logLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

var dateRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`) })

// versionOK reports whether a client's protocol version is acceptable: a
// YYYY-MM-DD date no earlier than ours (later ones are negotiated down).
func versionOK(v string) bool { return dateRE().MatchString(v) && v >= ProtocolVersion }

// initializeParams checks an initialize's protocol version and returns
// the params the SDK gets: ProtocolVersion alone, as the profile reads
// nothing else of them (and accepts any client info and capabilities,
// which the SDK's decoder might not).
func initializeParams(params json.RawMessage) (json.RawMessage, *response) {
	var p struct {
		ProtocolVersion any `json:"protocolVersion"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, errorResponse(nil, codeInvalidParams, "Invalid params: "+err.Error(), nil)
	}
	// Absent (or null) is accepted; anything but a supported YYYY-MM-DD
	// string, a number included, is an unsupported version.
	if p.ProtocolVersion != nil {
		if v, ok := p.ProtocolVersion.(string); !ok || !versionOK(v) {
			return nil, errorResponse(nil, codeInvalidParams, "Unsupported MCP protocol version",
				map[string]any{"supported": []string{ProtocolVersion}, "received": p.ProtocolVersion})
		}
	}
	return json.RawMessage(`{"protocolVersion":"` + ProtocolVersion + `","capabilities":{}}`), nil
}
