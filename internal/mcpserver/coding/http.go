package coding

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"

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
		fail := func(status, code int, msg string, data any) {
			h.Set("Content-Type", "application/json")
			w.WriteHeader(status)
			w.Write(mustMarshal(errorResponse(nil, code, msg, data)))
		}
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
		var sess *httpSession
		var tooMany *mcpx.SessionLimitError
		if known {
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
			fail(http.StatusBadRequest, codeInvalidRequest, "Unsupported MCP protocol version",
				map[string]any{"supported": []string{ProtocolVersion}, "received": v})
			return
		}
		if o := r.Header.Get("Origin"); o != "" && !mcpx.OriginAllowed(o, s.opts.Transport.AllowedOrigins) {
			fail(http.StatusForbidden, codeInvalidRequest, "Origin denied", nil)
			return
		}
		if sid := r.Header.Get("Mcp-Session-Id"); sid != "" && sid != sess.id {
			if s.sessions.find(sid) != nil {
				fail(http.StatusForbidden, codeInvalidRequest, "Forbidden: this MCP session belongs to another client; use the Mcp-Session-Id this server gives you (or send none)", nil)
				return
			}
			fail(http.StatusNotFound, codeUnknownSession, "Unknown MCP session", nil)
			return
		}
		cl := r.Header.Get("Content-Length")
		if cl == "" {
			fail(http.StatusLengthRequired, codeInvalidRequest, "Content-Length is required", nil)
			return
		}
		n, err := strconv.ParseInt(cl, 10, 64)
		if err != nil || n < 0 {
			fail(http.StatusBadRequest, codeInvalidRequest, "Invalid Content-Length", nil)
			return
		}
		if n > MaxBodyBytes {
			h.Set("Connection", "close")
			fail(http.StatusRequestEntityTooLarge, codeInvalidRequest, "Request body too large", map[string]any{"max_bytes": MaxBodyBytes})
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, n))
		if err != nil {
			fail(http.StatusBadRequest, codeParse, "Parse error", nil)
			return
		}
		resp, status := s.handleHTTPBody(r, &sess.conn, body)
		if resp == nil {
			w.WriteHeader(status)
			return
		}
		h.Set("Content-Type", "application/json")
		w.WriteHeader(status)
		w.Write(resp)
	})
}

// authenticate checks the request's bearer token against the
// transport's tokens and returns the caller it names; without tokens,
// every request passes, its caller unnamed.
func (s *Server) authenticate(r *http.Request) (string, bool) {
	if !s.auth.Enabled() {
		return "", true
	}
	return s.auth.Authenticate(r)
}

// handleHTTPBody applies the body checks (11–13) and dispatches.
func (s *Server) handleHTTPBody(r *http.Request, c *conn, body []byte) ([]byte, int) {
	resp := s.handleMessage(r.Context(), c, body)
	if resp == nil {
		return nil, http.StatusAccepted
	}
	// A parse error, an empty or oversized batch, or a message that is
	// neither object nor array is a 400 (its id is null).
	var probe struct {
		ID    any `json:"id"`
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	trimmed := strings.TrimSpace(string(body))
	isBatch := strings.HasPrefix(trimmed, "[")
	if len(resp) > 0 && resp[0] == '{' && unmarshalOK(resp, &probe) && probe.Error != nil && probe.ID == nil &&
		(probe.Error.Code == codeParse || (probe.Error.Code == codeInvalidRequest && (isBatch || !strings.HasPrefix(trimmed, "{")))) {
		return resp, http.StatusBadRequest
	}
	return resp, http.StatusOK
}

func newSessionID() string {
	b := make([]byte, 32)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func unmarshalOK(b []byte, v any) bool { return json.Unmarshal(b, v) == nil }
