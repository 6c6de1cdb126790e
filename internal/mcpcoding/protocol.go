package mcpcoding

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/sudocode/sudocode/internal/secret"
	"github.com/sudocode/sudocode/internal/workspace"
	"github.com/sudocode/sudocode/internal/workspace/procs"
)

// ProtocolVersion is the one MCP revision the profile speaks; clients
// asking for a later one are answered with it.
const ProtocolVersion = "2025-06-18"

// JSON-RPC error codes.
const (
	codeParse          = -32700
	codeInvalidRequest = -32600
	codeNoMethod       = -32601
	codeInvalidParams  = -32602
	codeInternal       = -32603
	codeUnknownSession = -32001
	codeNotInitialized = -32002
	codeUnauthorized   = -32000
)

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

// response is a JSON-RPC response; ID is raw so that it echoes the request.
type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

var nullID = json.RawMessage("null")

func errorResponse(id json.RawMessage, code int, msg string, data any) *response {
	if id == nil {
		id = nullID
	}
	return &response{JSONRPC: "2.0", ID: id, Error: &rpcError{Code: code, Message: msg, Data: data}}
}

// conn is one logical session: over HTTP the whole process, over stdio
// the connection.
type conn struct {
	initialized atomic.Bool
	mu          sync.Mutex
	logLevel    string
}

var logLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

var dateRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`) })

// versionOK reports whether a client's protocol version is acceptable: a
// YYYY-MM-DD date no earlier than ours (later ones are negotiated down).
func versionOK(v string) bool { return dateRE().MatchString(v) && v >= ProtocolVersion }

// handleMessage answers one raw message: an object or a batch array. It
// returns nil when nothing is to be sent (notifications only).
func (s *Server) handleMessage(ctx context.Context, c *conn, raw []byte) []byte {
	raw = bytes.TrimSpace(raw)
	// encoding/json takes invalid UTF-8 in strings (it substitutes
	// U+FFFD); the profile wants UTF-8 JSON, so that is a parse error too.
	if !utf8.Valid(raw) || !json.Valid(raw) {
		return mustMarshal(errorResponse(nil, codeParse, "Parse error", nil))
	}
	if len(raw) > 0 && raw[0] == '[' {
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil || len(items) == 0 {
			return mustMarshal(errorResponse(nil, codeInvalidRequest, "Invalid Request: empty batch", nil))
		}
		if len(items) > maxBatch {
			return mustMarshal(errorResponse(nil, codeInvalidRequest, "Invalid Request: batch too large", map[string]any{"max_items": maxBatch}))
		}
		var out []*response
		for _, it := range items {
			if r := s.handleOne(ctx, c, it); r != nil {
				out = append(out, r)
			}
		}
		if len(out) == 0 {
			return nil
		}
		return mustMarshal(out)
	}
	if len(raw) == 0 || raw[0] != '{' {
		return mustMarshal(errorResponse(nil, codeInvalidRequest, "Invalid Request: a message is a JSON object or a batch array", nil))
	}
	if r := s.handleOne(ctx, c, raw); r != nil {
		return mustMarshal(r)
	}
	return nil
}

// maxBatch is the most messages one batch may hold.
const maxBatch = 50

func mustMarshal(v any) []byte {
	b, err := marshalCompact(v)
	if err != nil {
		b, _ = marshalCompact(errorResponse(nil, codeInternal, "Internal error", nil))
	}
	return b
}

// request is the envelope of one message.
type request struct {
	JSONRPC json.RawMessage `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  json.RawMessage `json:"method"`
	Params  json.RawMessage `json:"params"`
}

// validID reports whether a raw id is a string, an integer or null.
func validID(id json.RawMessage) bool {
	if id == nil || string(id) == "null" {
		return true
	}
	var v any
	if json.Unmarshal(id, &v) != nil {
		return false
	}
	switch x := v.(type) {
	case string:
		return true
	case float64:
		return !bytes.ContainsAny(id, ".eE") && x == float64(int64(x))
	}
	return false
}

// handleOne answers one message object; nil for a notification.
func (s *Server) handleOne(ctx context.Context, c *conn, raw json.RawMessage) *response {
	var req request
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &req) != nil {
		return errorResponse(nil, codeInvalidRequest, "Invalid Request: not a JSON-RPC object", nil)
	}
	isNotification := req.ID == nil || string(req.ID) == "null"
	id := req.ID
	if !validID(id) {
		return errorResponse(nil, codeInvalidRequest, "Invalid Request: id must be a string, an integer or null", nil)
	}
	var method string
	if string(req.JSONRPC) != `"2.0"` || json.Unmarshal(req.Method, &method) != nil || method == "" {
		if isNotification {
			return nil
		}
		return errorResponse(id, codeInvalidRequest, `Invalid Request: jsonrpc must be "2.0" and method a non-empty string`, nil)
	}
	params := bytes.TrimSpace(req.Params)
	if len(params) > 0 && string(params) != "null" && params[0] != '{' {
		if isNotification {
			return nil
		}
		return errorResponse(id, codeInvalidParams, "Invalid params: params must be an object", nil)
	}
	if isNotification {
		s.notification(ctx, method, params)
		return nil
	}
	result, rerr := s.call(ctx, c, method, params)
	if rerr != nil {
		rerr.JSONRPC, rerr.ID = "2.0", id
		return rerr
	}
	return &response{JSONRPC: "2.0", ID: id, Result: result}
}

// notification handles a message that gets no answer.
func (s *Server) notification(ctx context.Context, method string, params json.RawMessage) {
	if method != "notifications/cancelled" {
		return
	}
	var p struct {
		SessionID string `json:"session_id"`
	}
	if json.Unmarshal(params, &p) == nil && p.SessionID != "" && s.cancelSession != nil {
		s.cancelSession(procs.WithOwner(ctx, s.callerOf(ctx)), p.SessionID)
	}
}

// call runs a request's method.
func (s *Server) call(ctx context.Context, c *conn, method string, params json.RawMessage) (any, *response) {
	if modern, rerr := checkModern(ctx, params); rerr != nil {
		return nil, rerr
	} else if modern {
		return s.callModern(ctx, method, params)
	}
	switch method {
	case "initialize":
		return s.initialize(c, params)
	case "ping":
		return map[string]any{}, nil
	}
	if !c.initialized.Load() {
		return nil, errorResponse(nil, codeNotInitialized, "Server not initialized", nil)
	}
	return s.method(ctx, c, method, params)
}

// method runs a request's method once the client is known to speak the
// protocol: initialized, or naming 2026-07-28 in the request.
func (s *Server) method(ctx context.Context, c *conn, method string, params json.RawMessage) (any, *response) {
	switch method {
	case "logging/setLevel":
		var p struct {
			Level any `json:"level"`
		}
		json.Unmarshal(orEmpty(params), &p)
		level, _ := p.Level.(string)
		if !slices.Contains(logLevels, level) {
			return nil, errorResponse(nil, codeInvalidParams, "Invalid params: unsupported logging level",
				map[string]any{"supported": logLevels, "received": p.Level})
		}
		c.mu.Lock()
		c.logLevel = level
		c.mu.Unlock()
		return map[string]any{}, nil
	case "tools/list":
		var p struct {
			Cursor any `json:"cursor"`
		}
		json.Unmarshal(params, &p)
		if p.Cursor != nil {
			return nil, errorResponse(nil, codeInvalidParams, "Invalid params: invalid cursor (tools/list has one page)", nil)
		}
		return map[string]any{"tools": s.tools}, nil
	case "tools/call":
		return s.callTool(ctx, params)
	}
	return nil, errorResponse(nil, codeNoMethod, "Method not found", map[string]any{"method": method})
}

func (s *Server) initialize(c *conn, params json.RawMessage) (any, *response) {
	var p struct {
		ProtocolVersion any `json:"protocolVersion"`
	}
	if err := json.Unmarshal(orEmpty(params), &p); err != nil {
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
	c.initialized.Store(true)
	return map[string]any{
		"protocolVersion": ProtocolVersion,
		"capabilities":    map[string]any{"tools": map[string]any{"listChanged": false}, "logging": map[string]any{}},
		"serverInfo":      map[string]any{"name": "coding-tools-mcp", "title": "Coding Tools MCP", "version": s.opts.Version},
		"instructions":    "Use these tools only for local coding operations inside the configured workspace.",
	}, nil
}

func orEmpty(b json.RawMessage) json.RawMessage {
	if len(b) == 0 || string(b) == "null" {
		return json.RawMessage("{}")
	}
	return b
}

// dispatchTool validates a tools/call and runs the tool (callTool wraps it
// in the shared controls).
func (s *Server) dispatchTool(ctx context.Context, params json.RawMessage) (any, *response) {
	var p struct {
		Name      json.RawMessage `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	json.Unmarshal(orEmpty(params), &p)
	// null unmarshals into a string without error: only a JSON string
	// names a tool.
	var name string
	if raw := bytes.TrimSpace(p.Name); len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &name) != nil {
		return nil, errorResponse(nil, codeInvalidParams, "Invalid params: tools/call needs a string name", nil)
	}
	// The shape of arguments is checked before the name is looked up
	// (docs/coding-tools.md#results, steps 1 and 2).
	args := map[string]any{}
	if raw := bytes.TrimSpace(p.Arguments); len(raw) > 0 && string(raw) != "null" {
		if raw[0] != '{' || json.Unmarshal(raw, &args) != nil {
			return nil, errorResponse(nil, codeInvalidParams, "Invalid params: arguments must be an object", nil)
		}
	}
	t, ok := s.byName[name]
	if !ok {
		return nil, errorResponse(nil, codeInvalidParams, "Unknown tool: "+name, map[string]any{"reason": "unknown_tool", "name": name})
	}
	raw, err := t.checkArgs(args)
	if err != nil {
		return nil, errorResponse(nil, codeInvalidParams, "Invalid arguments for "+name+": "+err.Error(),
			map[string]any{"reason": "invalid_arguments", "code": workspace.CodeInvalidArgument})
	}
	start := time.Now()
	res := callResult(ctx, t, raw)
	if s.opts.Trace && s.opts.TraceOut != nil {
		s.trace(name, args, res, time.Since(start))
	}
	return res, nil
}

// trace writes one JSON line about a tool call, its arguments redacted.
func (s *Server) trace(name string, args map[string]any, res map[string]any, took time.Duration) {
	var out struct {
		OK        bool    `json:"ok"`
		Status    *string `json:"status"`
		SessionID *string `json:"session_id"`
		Truncated bool    `json:"truncated"`
		Error     *struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	json.Unmarshal(res["structuredContent"].(json.RawMessage), &out)
	line := map[string]any{
		"event": "tool_call", "timestamp": time.Now().UTC().Format(time.RFC3339Nano), "tool": name, "ok": out.OK,
		"status": out.Status, "error_code": nil, "duration_ms": took.Milliseconds(), "session_id": out.SessionID,
		"truncated": out.Truncated, "args": secret.Redact(map[string]any(args)),
	}
	if out.Error != nil {
		line["error_code"] = out.Error.Code
	}
	b, _ := marshalCompact(line)
	s.traceMu.Lock()
	s.opts.TraceOut.Write(append(b, '\n'))
	s.traceMu.Unlock()
}
