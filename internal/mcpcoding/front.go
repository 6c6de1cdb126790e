package mcpcoding

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/mcpx"
	"github.com/sudocode/sudocode/internal/workspace/procs"
)

// The front is the profile's message layer in front of the SDK's server
// (docs/coding-tools.md#messages-and-methods): batches, which the SDK
// refuses from 2025-06-18 on; the envelope's checks with the profile's
// codes, where the SDK's decoder drops a message or answers another code;
// -32002 before initialize, where the SDK answers -32603; the profile's
// methods, anything else -32601 with the method in its data, where the SDK
// serves more (resources, prompts, completion) and answers without data;
// and notifications/cancelled naming an exec session, which MCP's
// cancellation (of a request) does not have. Every message that passes is
// handed to the SDK's server (pipe.go), which dispatches it.

// ProtocolVersion is the one MCP revision the profile speaks; clients
// asking for a later one are answered with it.
const ProtocolVersion = "2025-06-18"

// JSON-RPC error codes.
const (
	codeParse          = jsonrpc.CodeParseError
	codeInvalidRequest = jsonrpc.CodeInvalidRequest
	codeNoMethod       = jsonrpc.CodeMethodNotFound
	codeInvalidParams  = jsonrpc.CodeInvalidParams
	codeInternal       = jsonrpc.CodeInternalError
	codeUnknownSession = -32001
	codeNotInitialized = -32002
	codeUnauthorized   = -32000
)

// maxBatch is the most messages one batch may hold.
const maxBatch = 50

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
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

var nullID = json.RawMessage("null")

func errorResponse(id json.RawMessage, code int, msg string, data any) *response {
	if id == nil {
		id = nullID
	}
	return &response{JSONRPC: "2.0", ID: id, Error: &rpcError{Code: code, Message: msg, Data: data}}
}

// rpcErr is a JSON-RPC error a middleware or handler returns for the SDK
// to send as it is.
func rpcErr(code int, msg string, data any) error {
	e := &jsonrpc.Error{Code: int64(code), Message: msg}
	if data != nil {
		e.Data, _ = json.Marshal(data)
	}
	return e
}

// answer is what one HTTP body or stdio line gets back.
type answer struct {
	body []byte // nil: nothing (notifications only)
	// single is the response when the body was one message.
	single *response
	// whole says single refuses the body as a whole (not JSON, an empty or
	// oversized batch, neither object nor array): a 400 over HTTP.
	whole bool
}

// handleMessage answers one raw message: an object or a batch array.
func (s *Server) handleMessage(ctx context.Context, p *pipe, raw []byte) answer {
	raw = bytes.TrimSpace(raw)
	whole := func(r *response) answer { return answer{body: mustMarshal(r), single: r, whole: true} }
	// encoding/json takes invalid UTF-8 in strings (it substitutes
	// U+FFFD); the profile wants UTF-8 JSON, so that is a parse error too.
	if !utf8.Valid(raw) || !json.Valid(raw) {
		return whole(errorResponse(nil, codeParse, "Parse error", nil))
	}
	if raw[0] == '[' {
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil || len(items) == 0 {
			return whole(errorResponse(nil, codeInvalidRequest, "Invalid Request: empty batch", nil))
		}
		if len(items) > maxBatch {
			return whole(errorResponse(nil, codeInvalidRequest, "Invalid Request: batch too large", map[string]any{"max_items": maxBatch}))
		}
		var out []*response
		for _, it := range items {
			if r := s.handleOne(ctx, p, it); r != nil {
				out = append(out, r)
			}
		}
		if len(out) == 0 {
			return answer{}
		}
		return answer{body: mustMarshal(out)}
	}
	if raw[0] != '{' {
		return whole(errorResponse(nil, codeInvalidRequest, "Invalid Request: a message is a JSON object or a batch array", nil))
	}
	r := s.handleOne(ctx, p, raw)
	if r == nil {
		return answer{}
	}
	return answer{body: r.encode(), single: r}
}

// encode is the response's JSON. A result is written around the bytes the
// SDK encoded, as they are: encoding/json would compact them once more.
func (r *response) encode() []byte {
	if r.Error != nil {
		return mustMarshal(r)
	}
	b := make([]byte, 0, len(r.Result)+len(r.ID)+32)
	b = append(append(append(b, `{"jsonrpc":"2.0","id":`...), r.ID...), `,"result":`...)
	return append(append(b, r.Result...), '}')
}

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
func (s *Server) handleOne(ctx context.Context, p *pipe, raw json.RawMessage) *response {
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
	r := s.call(ctx, p, method, orEmpty(params))
	r.JSONRPC, r.ID = "2.0", id
	return r
}

// notification handles a message that gets no answer. The profile's one
// is notifications/cancelled with the session_id of an exec session to
// end; MCP's cancellation of a request has nothing to cancel here, since
// every request is answered before its HTTP response or stdio line ends.
func (s *Server) notification(ctx context.Context, method string, params json.RawMessage) {
	if method != "notifications/cancelled" {
		return
	}
	var p struct {
		SessionID string `json:"session_id"`
	}
	if json.Unmarshal(params, &p) == nil && p.SessionID != "" {
		s.procs.Cancel(procs.WithOwner(ctx, s.callerOf(ctx)), p.SessionID)
	}
}

// The methods of the profile's handshake clients, and of a 2026-07-28
// request (which has no handshake).
var (
	handshakeMethods = []string{"initialize", "ping", "logging/setLevel", "tools/list", "tools/call"}
	modernMethods    = []string{"server/discover", "tools/list", "tools/call"}
)

// call checks a request's method and params and has the SDK answer it.
func (s *Server) call(ctx context.Context, p *pipe, method string, params json.RawMessage) *response {
	modern, rerr := checkModern(ctx, params)
	if rerr != nil {
		return rerr
	}
	methods := handshakeMethods
	if modern {
		if rerr := checkHeaders(ctx, method, params); rerr != nil {
			return rerr
		}
		// It stands alone: no session, no initialize.
		p, methods = s.standalone, modernMethods
	} else if method != "initialize" && method != "ping" && !p.initialized.Load() {
		return errorResponse(nil, codeNotInitialized, "Server not initialized", nil)
	}
	if !slices.Contains(methods, method) {
		return errorResponse(nil, codeNoMethod, "Method not found", map[string]any{"method": method})
	}
	params, rerr = checkParams(method, params)
	if rerr != nil {
		return rerr
	}
	// Every request gets its own extra: it is also the key under which a
	// tool's answer comes back encoded (encodedResults).
	extra := &mcp.RequestExtra{}
	if caller := mcpx.CallerFrom(ctx); caller != "" {
		// What the SDK's HTTP handler hands on for a bearer token: the
		// shared controls (mcpx.Install) read the caller from it.
		extra.TokenInfo = &auth.TokenInfo{UserID: caller}
	}
	defer s.encoded.Delete(extra)
	r, err := p.call(ctx, method, params, extra)
	if err != nil {
		return errorResponse(nil, codeInternal, "Internal error: "+err.Error(), nil)
	}
	if r.Error != nil {
		return fromSDKError(r.Error)
	}
	if method == "initialize" {
		p.initialized.Store(true)
	}
	if b, ok := s.encoded.Load(extra); ok {
		return &response{Result: b.([]byte)}
	}
	return &response{Result: r.Result}
}

// fromSDKError is the response carrying an error the SDK answered with.
func fromSDKError(err error) *response {
	var we *jsonrpc.Error
	if !errors.As(err, &we) {
		return errorResponse(nil, codeInternal, err.Error(), nil)
	}
	var data any
	if len(we.Data) > 0 {
		data = we.Data
	}
	return errorResponse(nil, int(we.Code), err.Error(), data)
}

func orEmpty(b json.RawMessage) json.RawMessage {
	if len(b) == 0 || string(b) == "null" {
		return json.RawMessage("{}")
	}
	return b
}
