package mcpcoding

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"path"
	"strconv"

	"github.com/sudocode/sudocode/internal/mcpx"
)

// MaxBodyBytes is the largest request body the HTTP transport reads.
const MaxBodyBytes = 1 << 20

// HTTPHandler serves the profile's Streamable HTTP transport at /mcp: POST
// only, JSON responses, a session id on every response, and the profile's
// pre-dispatch checks in its order. The session is the client's
// (httpSession): the process's one unless a token file names clients.
func (s *Server) HTTPHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		answer := func(id json.RawMessage, status, code int, msg string, data any) {
			h.Set("Content-Type", "application/json")
			w.WriteHeader(status)
			w.Write(mustMarshal(errorResponse(id, code, msg, data)))
		}
		// A check that fails before dispatch answers with the request's
		// id when its body has one (MCP 2026-07-28); the checks of the
		// body's length (8–10) read no body, and answer null.
		fail := func(status, code int, msg string, data any) { answer(requestID(r), status, code, msg, data) }
		failUnread := func(status, code int, msg string, data any) { answer(nil, status, code, msg, data) }
		// The client is known before the checks so that every answer
		// carries its session id. Without a token file there is one client,
		// and so the profile's one session, whose id every response
		// carries; with one, a request without a good token names no
		// client and gets no id.
		caller, authenticated := s.authenticate(r)
		owner, known := caller, authenticated
		if !authenticated && !s.auth.NamesClients() {
			owner, known = mcpx.SingleTokenCaller, true
		}
		// A 2026-07-28 request stands alone: it gets no session (and no
		// session id), and any instance may answer it.
		// A server run stateless serves every request so.
		stateless := s.opts.Transport.Stateless
		revision2026 := r.Header.Get("MCP-Protocol-Version") == mcpx.ModernProtocol
		modern := stateless || revision2026
		var sess *httpSession
		var tooMany *mcpx.SessionLimitError
		if known && !modern {
			if sess, tooMany = s.sessions.of(owner); sess != nil {
				h.Set("Mcp-Session-Id", sess.id)
			}
		}
		if r.Method != http.MethodPost {
			h.Set("Allow", "POST")
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		if p := path.Clean("/" + r.URL.Path); p != "/mcp" {
			fail(http.StatusNotFound, codeNoMethod, "Unknown endpoint", nil)
			return
		}
		if !authenticated {
			h.Set("WWW-Authenticate", `Bearer realm="coding-tools-mcp"`)
			fail(http.StatusUnauthorized, codeUnauthorized, "Unauthorized", nil)
			return
		}
		if tooMany != nil {
			tooMany.Write(w)
			return
		}
		if caller != "" {
			r = r.WithContext(mcpx.WithCaller(r.Context(), caller))
		}
		if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
			fail(http.StatusUnsupportedMediaType, codeInvalidRequest, "Unsupported Content-Type: send application/json", nil)
			return
		}
		if v := r.Header.Get("MCP-Protocol-Version"); v != "" && !versionOK(v) {
			// requested is 2026-07-28's name for the profile's received.
			fail(http.StatusBadRequest, codeInvalidRequest, "Unsupported MCP protocol version",
				map[string]any{"supported": []string{ProtocolVersion}, "received": v, "requested": v})
			return
		}
		if o := r.Header.Get("Origin"); o != "" && !s.opts.Guarded && !mcpx.OriginAllowed(o, s.opts.Transport.AllowedOrigins) {
			fail(http.StatusForbidden, codeInvalidRequest, "Origin denied", nil)
			return
		}
		if sid := r.Header.Get("Mcp-Session-Id"); sid != "" && !modern && sid != sess.id {
			if s.sessions.find(sid) != nil {
				fail(http.StatusForbidden, codeInvalidRequest, "Forbidden: this MCP session belongs to another client; use the Mcp-Session-Id this server gives you (or send none)", nil)
				return
			}
			fail(http.StatusNotFound, codeUnknownSession, "Unknown MCP session", nil)
			return
		}
		cl := r.Header.Get("Content-Length")
		if cl == "" {
			failUnread(http.StatusLengthRequired, codeInvalidRequest, "Content-Length is required", nil)
			return
		}
		n, err := strconv.ParseInt(cl, 10, 64)
		if err != nil || n < 0 {
			failUnread(http.StatusBadRequest, codeInvalidRequest, "Invalid Content-Length", nil)
			return
		}
		if n > MaxBodyBytes {
			h.Set("Connection", "close")
			failUnread(http.StatusRequestEntityTooLarge, codeInvalidRequest, "Request body too large", map[string]any{"max_bytes": MaxBodyBytes})
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, n))
		if err != nil {
			fail(http.StatusBadRequest, codeParse, "Parse error", nil)
			return
		}
		p := s.standalone
		if sess != nil {
			p = sess.pipe
		}
		r = r.WithContext(withHTTPHeaders(r.Context(), r.Header))
		a := s.handleMessage(r.Context(), p, body)
		status := httpStatus(a, revision2026)
		if a.body == nil {
			w.WriteHeader(status)
			return
		}
		h.Set("Content-Type", "application/json")
		w.WriteHeader(status)
		w.Write(a.body)
	})
}

// authenticate checks the request's bearer token against the
// transport's tokens and returns the caller it names; without tokens,
// every request passes, its caller unnamed. Behind mcpx.Guard the guard
// has checked the token: its caller is the request's.
func (s *Server) authenticate(r *http.Request) (string, bool) {
	if s.opts.Guarded {
		return mcpx.CallerFrom(r.Context()), true
	}
	if !s.auth.Enabled() {
		return "", true
	}
	return s.auth.Authenticate(r)
}

// httpStatus is the status of an answer (docs/coding-tools.md#http,
// checks 11–13): 202 for nothing to send; 400 for a body refused as a
// whole (not JSON, an empty or oversized batch, neither object nor
// array); for a request of 2026-07-28, that revision's status of its
// error (a request naming it in its _meta but not in its header is one
// too); else 200.
func httpStatus(a answer, revision2026 bool) int {
	switch {
	case a.body == nil:
		return http.StatusAccepted
	case a.single == nil || a.single.Error == nil:
		return http.StatusOK
	}
	code := a.single.Error.Code
	if revision2026 || code == codeHeaderMismatch || code == codeUnsupportedVersion {
		return statusOf2026(code)
	}
	if a.whole {
		return http.StatusBadRequest
	}
	return http.StatusOK
}

// requestID is the id of the one JSON-RPC request in r's body, read
// within the body's limit; nil when the body is longer, unreadable, not
// one request object, or its id is not a valid one.
func requestID(r *http.Request) json.RawMessage {
	n, err := strconv.ParseInt(r.Header.Get("Content-Length"), 10, 64)
	if err != nil || n <= 0 || n > MaxBodyBytes {
		return nil
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, n))
	if err != nil {
		return nil
	}
	var msg struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(body, &msg) != nil || msg.ID == nil || !validID(msg.ID) {
		return nil
	}
	return msg.ID
}

func newSessionID() string {
	b := make([]byte, 32)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
