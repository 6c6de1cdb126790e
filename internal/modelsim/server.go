package modelsim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Server is a running simulator on a loopback port.
type Server struct {
	URL string // http://127.0.0.1:PORT, no trailing slash

	srv  *httptest.Server
	ids  atomic.Int64
	mu   sync.Mutex
	reqs []Request
}

// Request is one recorded request.
type Request struct {
	Method, Path string      // Path includes the query, secrets removed
	Header       http.Header // minus credentials
	Body         []byte
	API          string   // anthropic, responses, chat, gemini, or "" for other endpoints
	Tools        []string // names of the tools the request offered
	Calls        []string // names of the tools the simulator called in its answer
	Known        bool     // false for a path the simulator does not serve (answered 404)
}

// InputTokens is the input token count the simulator reported for r (a
// model call), so that a test can check the usage a CLI adds up.
func (r Request) InputTokens() int { return inputTokens(r.Body) }

// Start starts a simulator on 127.0.0.1 and stops it when the test ends.
func Start(t testing.TB) *Server {
	s := &Server{}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	t.Cleanup(s.Close)
	return s
}

// Close stops the server; a hanging call is released.
func (s *Server) Close() {
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// Requests are the requests received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// ModelRequests are the recorded model calls (not model lists, token
// counts or unknown paths).
func (s *Server) ModelRequests() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.API != "" {
			out = append(out, r)
		}
	}
	return out
}

// Unknown lists the method and path of each request to an endpoint the
// simulator does not know, for a test's log.
func (s *Server) Unknown() []string {
	var out []string
	for _, r := range s.Requests() {
		if !r.Known {
			out = append(out, r.Method+" "+r.Path)
		}
	}
	return out
}

// Tools are the tool names offered by the model calls so far, each once,
// in the order first seen.
func (s *Server) Tools() []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range s.ModelRequests() {
		for _, n := range r.Tools {
			if !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	return out
}

// secretHeaders are not recorded.
var secretHeaders = []string{"Authorization", "X-Api-Key", "X-Goog-Api-Key", "Cookie", "Proxy-Authorization"}

func (s *Server) record(r *http.Request, body []byte) int {
	h := r.Header.Clone()
	for _, k := range secretHeaders {
		h.Del(k)
	}
	q := r.URL.Query()
	q.Del("key")
	path := r.URL.Path
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = append(s.reqs, Request{Method: r.Method, Path: path, Header: h, Body: body, Known: true})
	return len(s.reqs) - 1
}

func (s *Server) annotate(i int, api string, tools []toolDef, known bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs[i].API, s.reqs[i].Tools, s.reqs[i].Known = api, toolNames(tools), known
}

// planOrFail plans request i's answer and records its tool calls; a
// scripted hang holds the request until the client gives up, a wait until
// its file exists (a call never answered records none), and a scripted
// error is answered with the API's own error body (errBody); ok says
// whether to answer normally.
func (s *Server) planOrFail(w http.ResponseWriter, r *http.Request, i int, c *conversation, errBody func(status int, msg string) any) (rep reply, ok bool) {
	rep = plan(c)
	if rep.waitFor != "" && !waitFile(r, rep.waitFor) {
		return rep, false
	}
	s.recordCalls(i, rep)
	switch {
	case rep.hang:
		hang(r)
		return rep, false
	case rep.status != 0:
		writeJSON(w, rep.status, errBody(rep.status, errorText(rep.status)))
		return rep, false
	}
	return rep, true
}

// recordCalls records the tool calls of rep, request i's answer.
func (s *Server) recordCalls(i int, rep reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range rep.parts {
		if p.call != nil {
			s.reqs[i].Calls = append(s.reqs[i].Calls, p.call.name)
		}
	}
}

// Calls are the names of the tools the simulator called, in order.
func (s *Server) Calls() []string {
	var out []string
	for _, r := range s.Requests() {
		out = append(out, r.Calls...)
	}
	return out
}

func (s *Server) newID(prefix string) string {
	return fmt.Sprintf("%s_sim%06d", prefix, s.ids.Add(1))
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	// Some clients compress request bodies; none of these do today, and a
	// body that is not JSON is answered 400 by the handlers.
	i := s.record(r, body)
	p := r.URL.Path
	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(p, "/messages/count_tokens"):
		writeJSON(w, 200, map[string]any{"input_tokens": len(body)/4 + 1})
	case r.Method == http.MethodPost && strings.HasSuffix(p, "/messages"):
		s.anthropic(w, r, body, i)
	case r.Method == http.MethodPost && strings.HasSuffix(p, "/responses"):
		s.responses(w, r, body, i)
	case r.Method == http.MethodPost && strings.HasSuffix(p, "/chat/completions"):
		s.chat(w, r, body, i)
	case r.Method == http.MethodPost && strings.Contains(p, "/models/") && strings.Contains(p, ":"):
		s.gemini(w, r, body, i)
	case r.Method == http.MethodGet && strings.HasSuffix(p, "/models"):
		writeJSON(w, 200, modelList())
	default:
		s.annotate(i, "", nil, false)
		writeJSON(w, 404, map[string]any{"error": map[string]any{"type": "not_found_error", "message": "modelsim: no such endpoint " + r.Method + " " + p}})
	}
}

// modelList answers a model listing in both vendors' shapes at once.
func modelList() map[string]any {
	return map[string]any{
		"object":   "list",
		"data":     []any{map[string]any{"id": "sim-model", "object": "model", "type": "model", "display_name": "Simulated model", "created_at": "2026-01-01T00:00:00Z", "owned_by": "modelsim"}},
		"has_more": false,
		"models":   []any{map[string]any{"name": "models/sim-model", "displayName": "Simulated model", "supportedGenerationMethods": []string{"generateContent", "countTokens"}}},
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// sse writes server-sent events, flushing each one.
type sse struct {
	w http.ResponseWriter
	f http.Flusher
}

func startSSE(w http.ResponseWriter) *sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(200)
	f, _ := w.(http.Flusher)
	return &sse{w: w, f: f}
}

// event writes one event; name may be empty (data-only streams).
func (e *sse) event(name string, data any) {
	var b bytes.Buffer
	if name != "" {
		fmt.Fprintf(&b, "event: %s\n", name)
	}
	switch d := data.(type) {
	case string:
		fmt.Fprintf(&b, "data: %s\n\n", d)
	default:
		j, _ := json.Marshal(d)
		fmt.Fprintf(&b, "data: %s\n\n", j)
	}
	_, _ = e.w.Write(b.Bytes())
	if e.f != nil {
		e.f.Flush()
	}
}

// hang blocks until the client goes away or the server closes.
func hang(r *http.Request) { <-r.Context().Done() }

// waitFile blocks until the file at path exists (true), or the client
// goes away or the server closes (false).
func waitFile(r *http.Request, path string) bool {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if _, err := os.Stat(path); err == nil {
			return true
		}
		select {
		case <-r.Context().Done():
			return false
		case <-tick.C:
		}
	}
}
