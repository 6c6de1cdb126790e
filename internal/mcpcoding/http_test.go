package mcpcoding_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/mcpcoding"
	"github.com/sudocode/sudocode/internal/mcpx"
)

const (
	pingReq = `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	// pingStringID is a ping whose id is a string.
	pingStringID = `{"jsonrpc":"2.0","id":"a-7","method":"ping"}`
	initReq      = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`
)

// sessionIDs collects the Mcp-Session-Id of every response of one server:
// it must be one constant, unguessable, URL-safe id.
type sessionIDs struct {
	mu  sync.Mutex
	ids map[string]int
}

func (s *sessionIDs) add(t *testing.T, what string, h http.Header) {
	t.Helper()
	id := h.Get("Mcp-Session-Id")
	if id == "" {
		t.Errorf("%s: response without Mcp-Session-Id", what)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ids == nil {
		s.ids = map[string]int{}
	}
	s.ids[id]++
}

func (s *sessionIDs) check(t *testing.T) string {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.ids) != 1 {
		t.Fatalf("Mcp-Session-Id is not constant: %v", s.ids)
	}
	for id := range s.ids {
		// At least 24 random bytes, URL-safe ASCII.
		if !regexp.MustCompile(`^[A-Za-z0-9_-]{32,}$`).MatchString(id) {
			t.Fatalf("Mcp-Session-Id %q is not a long URL-safe id", id)
		}
		return id
	}
	return ""
}

// wantHTTPError asserts a pre-dispatch failure: status, Content-Type JSON,
// a compact JSON-RPC error with id null and the code, message containing
// msg.
func wantHTTPError(t *testing.T, r reply, status, code int, msg string) message {
	t.Helper()
	return wantHTTPErrorID(t, r, status, code, "null", msg)
}

// wantHTTPErrorID is wantHTTPError of an error whose id is id (raw JSON).
func wantHTTPErrorID(t *testing.T, r reply, status, code int, id, msg string) message {
	t.Helper()
	if r.status != status {
		t.Fatalf("HTTP %d, want %d (body %s)", r.status, status, r.body)
	}
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("Content-Type = %q, want application/json", ct)
	}
	wantCompact(t, r.body)
	m := decode(t, r.body)
	m.wantError(t, code, id, msg)
	return m
}

func wantCompact(t *testing.T, b []byte) {
	t.Helper()
	var c bytes.Buffer
	if err := json.Compact(&c, b); err != nil {
		t.Fatalf("body %q is not JSON: %v", b, err)
	}
	if !bytes.Equal(c.Bytes(), bytes.TrimRight(b, "\n")) {
		t.Fatalf("body is not compact JSON: %q", b)
	}
}

// TestHTTPPreDispatchTable walks every row of the pre-dispatch table
// (docs/coding-tools.md#http-transport) and the order between neighbouring
// rows.
func TestHTTPPreDispatchTable(t *testing.T) {
	t.Parallel()
	const token = "s3cret-token"
	srv := httptest.NewServer(newServer(t, mcpcoding.Options{Transport: mcpx.Transport{Token: token}}).HTTPHandler())
	t.Cleanup(srv.Close)
	base := srv.URL
	var ids sessionIDs
	// A valid session id to send: the server's own, from a first response.
	first := post(t, base+"/mcp", hdr{"Authorization": "Bearer " + token}, pingReq)
	ids.add(t, "first", first.header)
	sid := first.header.Get("Mcp-Session-Id")
	good := func(extra hdr) hdr {
		h := hdr{"Authorization": "Bearer " + token, "Mcp-Session-Id": sid}
		for k, v := range extra {
			h[k] = v
		}
		return h
	}

	type row struct {
		name         string
		method, path string
		h            hdr
		body         string
		status, code int
		msg          string
	}
	rows := []row{
		// 1: not POST → 405, checked before anything else.
		{"GET", "GET", "/mcp", good(nil), "", 405, 0, ""},
		{"HEAD", "HEAD", "/mcp", good(nil), "", 405, 0, ""},
		{"DELETE", "DELETE", "/mcp", good(nil), "", 405, 0, ""},
		{"PUT", "PUT", "/mcp", good(nil), pingReq, 405, 0, ""},
		{"OPTIONS", "OPTIONS", "/mcp", good(nil), "", 405, 0, ""},
		{"PATCH", "PATCH", "/mcp", good(nil), pingReq, 405, 0, ""},
		{"GET wrong path", "GET", "/nope", nil, "", 405, 0, ""},
		{"GET no auth", "GET", "/mcp", hdr{"Content-Type": "text/plain"}, "", 405, 0, ""},
		// 2: path.
		{"root path", "POST", "/", good(nil), pingReq, 404, -32601, "Unknown endpoint"},
		{"other path", "POST", "/other", good(nil), pingReq, 404, -32601, "Unknown endpoint"},
		{"prefix look-alike", "POST", "/mcpx", good(nil), pingReq, 404, -32601, "Unknown endpoint"},
		{"sub path", "POST", "/mcp/x", good(nil), pingReq, 404, -32601, "Unknown endpoint"},
		{"wrong path before auth", "POST", "/other", hdr{}, pingReq, 404, -32601, "Unknown endpoint"},
		// 3: bearer token.
		{"no token", "POST", "/mcp", hdr{"Mcp-Session-Id": sid}, pingReq, 401, -32000, "Unauthorized"},
		{"wrong token", "POST", "/mcp", good(hdr{"Authorization": "Bearer nope"}), pingReq, 401, -32000, "Unauthorized"},
		{"token prefix", "POST", "/mcp", good(hdr{"Authorization": "Bearer " + token[:5]}), pingReq, 401, -32000, "Unauthorized"},
		{"token without scheme", "POST", "/mcp", good(hdr{"Authorization": token}), pingReq, 401, -32000, "Unauthorized"},
		{"basic scheme", "POST", "/mcp", good(hdr{"Authorization": "Basic " + token}), pingReq, 401, -32000, "Unauthorized"},
		{"auth before content type", "POST", "/mcp", hdr{"Content-Type": "text/plain"}, pingReq, 401, -32000, "Unauthorized"},
		// 4: Content-Type.
		{"text/plain", "POST", "/mcp", good(hdr{"Content-Type": "text/plain"}), pingReq, 415, -32600, "Content-Type"},
		{"no content type", "POST", "/mcp", good(hdr{"Content-Type": ""}), pingReq, 415, -32600, "Content-Type"},
		{"form", "POST", "/mcp", good(hdr{"Content-Type": "application/x-www-form-urlencoded"}), pingReq, 415, -32600, "Content-Type"},
		{"json look-alike", "POST", "/mcp", good(hdr{"Content-Type": "application/json-seq"}), pingReq, 415, -32600, "Content-Type"},
		{"event stream", "POST", "/mcp", good(hdr{"Content-Type": "text/event-stream"}), pingReq, 415, -32600, "Content-Type"},
		{"content type before version", "POST", "/mcp", good(hdr{"Content-Type": "text/plain", "MCP-Protocol-Version": "bad"}), pingReq, 415, -32600, "Content-Type"},
		// 5: MCP-Protocol-Version.
		{"older version", "POST", "/mcp", good(hdr{"MCP-Protocol-Version": "2025-03-26"}), pingReq, 400, -32600, "Unsupported MCP protocol version"},
		{"much older version", "POST", "/mcp", good(hdr{"MCP-Protocol-Version": "2024-11-05"}), pingReq, 400, -32600, "Unsupported MCP protocol version"},
		{"not a date", "POST", "/mcp", good(hdr{"MCP-Protocol-Version": "latest"}), pingReq, 400, -32600, "Unsupported MCP protocol version"},
		{"short date", "POST", "/mcp", good(hdr{"MCP-Protocol-Version": "2025-6-18"}), pingReq, 400, -32600, "Unsupported MCP protocol version"},
		{"version before origin", "POST", "/mcp", good(hdr{"MCP-Protocol-Version": "2025-03-26", "Origin": "https://evil.test"}), pingReq, 400, -32600, "Unsupported MCP protocol version"},
		{"bad version, string id", "POST", "/mcp", good(hdr{"MCP-Protocol-Version": "2025-03-26"}), pingStringID, 400, -32600, "Unsupported MCP protocol version"},
		{"bad version, batch", "POST", "/mcp", good(hdr{"MCP-Protocol-Version": "2025-03-26"}), "[" + pingReq + "]", 400, -32600, "Unsupported MCP protocol version"},
		{"bad version, body not JSON", "POST", "/mcp", good(hdr{"MCP-Protocol-Version": "2025-03-26"}), `{"id":1,`, 400, -32600, "Unsupported MCP protocol version"},
		// 6: Origin.
		{"foreign origin", "POST", "/mcp", good(hdr{"Origin": "https://evil.test"}), pingReq, 403, -32600, "Origin denied"},
		{"origin before session", "POST", "/mcp", good(hdr{"Origin": "https://evil.test", "Mcp-Session-Id": "wrong"}), pingReq, 403, -32600, "Origin denied"},
		// 7: session id.
		{"wrong session", "POST", "/mcp", good(hdr{"Mcp-Session-Id": "wrong"}), pingReq, 404, -32001, "Unknown MCP session"},
		{"session id with a suffix", "POST", "/mcp", good(hdr{"Mcp-Session-Id": sid + "x"}), pingReq, 404, -32001, "Unknown MCP session"},
		// 11: body not JSON.
		{"not JSON", "POST", "/mcp", good(nil), `{"jsonrpc":`, 400, -32700, "Parse error"},
		{"trailing garbage", "POST", "/mcp", good(nil), pingReq + "x", 400, -32700, "Parse error"},
		{"two objects", "POST", "/mcp", good(nil), pingReq + pingReq, 400, -32700, "Parse error"},
		{"invalid UTF-8", "POST", "/mcp", good(nil), "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"x\":\"\xff\"}}", 400, -32700, "Parse error"},
		{"empty body", "POST", "/mcp", good(nil), "", 400, -32700, "Parse error"},
		// 12: empty batch, neither object nor array.
		{"empty batch", "POST", "/mcp", good(nil), `[]`, 400, -32600, "Invalid Request"},
		{"empty batch with spaces", "POST", "/mcp", good(nil), ` [ ] `, 400, -32600, "Invalid Request"},
		{"number", "POST", "/mcp", good(nil), `1`, 400, -32600, "Invalid Request"},
		{"string", "POST", "/mcp", good(nil), `"ping"`, 400, -32600, "Invalid Request"},
		{"null", "POST", "/mcp", good(nil), `null`, 400, -32600, "Invalid Request"},
		{"boolean", "POST", "/mcp", good(nil), `true`, 400, -32600, "Invalid Request"},
		// 13: batch over 50.
		{"51 items", "POST", "/mcp", good(nil), batchOf(51, pingReq), 400, -32600, ""},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			got := do(t, r.method, base+r.path, r.h, r.body)
			ids.add(t, r.name, got.header)
			if r.status == 405 {
				if got.status != 405 {
					t.Fatalf("HTTP %d, want 405 (body %s)", got.status, got.body)
				}
				if a := got.header.Get("Allow"); a != "POST" {
					t.Fatalf("Allow = %q, want POST", a)
				}
				if len(got.body) != 0 {
					t.Fatalf("405 with a body: %q", got.body)
				}
				return
			}
			// The request's id, where its body has one (MCP 2026-07-28): a
			// check that reads no body (8–10) and a body that is not one
			// request (11–13) answer null.
			wantID := "null"
			switch r.body {
			case pingReq:
				wantID = "1"
			case pingStringID:
				wantID = `"a-7"`
			}
			m := wantHTTPErrorID(t, got, r.status, r.code, wantID, r.msg)
			switch r.status {
			case 401:
				if w := got.header.Get("WWW-Authenticate"); w != `Bearer realm="coding-tools-mcp"` {
					t.Fatalf("WWW-Authenticate = %q", w)
				}
			case 400:
				if r.code == -32600 && strings.Contains(r.msg, "version") {
					wantData(t, m, "supported", []any{"2025-06-18"})
					wantData(t, m, "received", r.h["MCP-Protocol-Version"])
				}
				if r.name == "51 items" {
					wantData(t, m, "max_items", 50.0)
				}
			}
			if r.status != 401 && got.header.Get("WWW-Authenticate") != "" {
				t.Fatalf("WWW-Authenticate on a %d", got.status)
			}
		})
	}

	// What passes every check.
	for _, c := range []struct {
		name, path string
		h          hdr
	}{
		{"canonical", "/mcp", good(nil)},
		{"trailing slash", "/mcp/", good(nil)},
		{"query string", "/mcp?x=1&session=2", good(nil)},
		{"slash and query", "/mcp/?a=b", good(nil)},
		{"double slash", "//mcp", good(nil)},
		{"no session header", "/mcp", good(hdr{"Mcp-Session-Id": ""})},
		{"charset", "/mcp", good(hdr{"Content-Type": "application/json; charset=utf-8"})},
		{"upper-case media type", "/mcp", good(hdr{"Content-Type": "Application/JSON"})},
		{"current version", "/mcp", good(hdr{"MCP-Protocol-Version": "2025-06-18"})},
		{"newer version", "/mcp", good(hdr{"MCP-Protocol-Version": "2025-11-25"})},
		{"far future version", "/mcp", good(hdr{"MCP-Protocol-Version": "2099-12-31"})},
		{"any Accept", "/mcp", good(hdr{"Accept": "text/html"})},
		{"SDK Accept", "/mcp", good(hdr{"Accept": "application/json, text/event-stream"})},
		{"loopback origin", "/mcp", good(hdr{"Origin": "http://localhost:3000"})},
	} {
		t.Run("ok/"+c.name, func(t *testing.T) {
			got := post(t, base+c.path, c.h, pingReq)
			ids.add(t, c.name, got.header)
			if got.status != 200 {
				t.Fatalf("HTTP %d (body %s), want 200", got.status, got.body)
			}
			if ct := got.header.Get("Content-Type"); ct != "application/json" {
				t.Fatalf("Content-Type = %q", ct)
			}
			wantCompact(t, got.body)
			m := decode(t, got.body)
			if string(m.ID) != "1" || string(m.Result) != "{}" {
				t.Fatalf("ping answered %s", got.body)
			}
		})
	}
	if got := ids.check(t); got != sid {
		t.Fatalf("session id %q, first response had %q", got, sid)
	}
}

// wantData asserts one member of an error's data.
func wantData(t *testing.T, m message, key string, want any) {
	t.Helper()
	got, ok := m.Error.Data[key]
	if !ok {
		t.Fatalf("error data %v has no %q", m.Error.Data, key)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("error data %q = %#v, want %#v", key, got, want)
	}
}

func batchOf(n int, item string) string {
	items := make([]string, n)
	for i := range items {
		items[i] = strings.Replace(item, `"id":1`, fmt.Sprintf(`"id":%d`, i+1), 1)
	}
	return "[" + strings.Join(items, ",") + "]"
}

// TestHTTPContentLength covers rows 8–10: the body's length is required,
// must be a non-negative integer and at most 1 MiB, and an oversized body
// is refused without being read.
func TestHTTPContentLength(t *testing.T) {
	t.Parallel()
	srv, _ := newHTTP(t, mcpcoding.Options{})
	addr := srv.Listener.Addr().String()
	var ids sessionIDs

	t.Run("chunked body has no Content-Length", func(t *testing.T) {
		r := rawHTTP(t, addr, "POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"+
			fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", len(pingReq), pingReq))
		ids.add(t, "chunked", r.header)
		wantHTTPError(t, r, 411, -32600, "Content-Length")
	})
	t.Run("no body and no Content-Length", func(t *testing.T) {
		r := rawHTTP(t, addr, "POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n")
		ids.add(t, "no length", r.header)
		wantHTTPError(t, r, 411, -32600, "Content-Length")
	})
	t.Run("session before length", func(t *testing.T) {
		r := rawHTTP(t, addr, "POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nMcp-Session-Id: wrong\r\nConnection: close\r\n\r\n")
		ids.add(t, "session before length", r.header)
		wantHTTPError(t, r, 404, -32001, "Unknown MCP session")
	})
	t.Run("over the cap, body never sent", func(t *testing.T) {
		// Only the headers and a few bytes of the body go out: the answer
		// must come anyway, and the connection must then be closed.
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(5 * time.Second))
		fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n[{\"jsonrpc\"", 50<<20)
		br := bufio.NewReader(c)
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("no response before the body was sent: %v", err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		ids.add(t, "413", resp.Header)
		m := wantHTTPError(t, reply{resp.StatusCode, resp.Header, body}, 413, -32600, "")
		wantData(t, m, "max_bytes", 1048576.0)
		if !resp.Close {
			t.Errorf("413 does not announce Connection: close")
		}
		if n, err := br.Read(make([]byte, 1)); err == nil {
			t.Fatalf("connection still open after 413 (read %d bytes)", n)
		}
	})
	t.Run("one byte over the cap", func(t *testing.T) {
		r := post(t, srv.URL+"/mcp", nil, padded(mcpcoding.MaxBodyBytes+1))
		ids.add(t, "cap+1", r.header)
		m := wantHTTPError(t, r, 413, -32600, "")
		wantData(t, m, "max_bytes", 1048576.0)
	})
	t.Run("exactly the cap", func(t *testing.T) {
		r := post(t, srv.URL+"/mcp", nil, padded(mcpcoding.MaxBodyBytes))
		ids.add(t, "cap", r.header)
		if r.status != 200 {
			t.Fatalf("HTTP %d (%.200s)", r.status, r.body)
		}
		if m := decode(t, r.body); string(m.Result) != "{}" {
			t.Fatalf("ping answered %s", r.body)
		}
	})
	t.Run("length before body parse", func(t *testing.T) {
		r := rawHTTP(t, addr, "POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2000000\r\n\r\nnot json")
		ids.add(t, "length before parse", r.header)
		wantHTTPError(t, r, 413, -32600, "")
	})
	t.Run("body shorter than announced", func(t *testing.T) {
		// The client half-closes after a short body: the read fails.
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(5 * time.Second))
		fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n%s", pingReq)
		c.(*net.TCPConn).CloseWrite()
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			return // dropping the connection is fine too
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		ids.add(t, "short", resp.Header)
		wantHTTPError(t, reply{resp.StatusCode, resp.Header, body}, 400, -32700, "")
	})
	// net/http itself refuses a malformed Content-Length before any
	// handler runs, so row 9 is checked on the handler directly.
	h := newServer(t, mcpcoding.Options{}).HTTPHandler()
	var direct sessionIDs
	for _, cl := range []string{"abc", "-1", "1.5", "0x10", " ", "1e3"} {
		t.Run("Content-Length "+cl, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(pingReq))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Content-Length", cl)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			direct.add(t, cl, rec.Header())
			wantHTTPError(t, reply{rec.Code, rec.Header(), rec.Body.Bytes()}, 400, -32600, "Content-Length")
		})
	}
	t.Run("order: length row 8 before 9", func(t *testing.T) {
		req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(pingReq))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Del("Content-Length")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		direct.add(t, "none", rec.Header())
		wantHTTPError(t, reply{rec.Code, rec.Header(), rec.Body.Bytes()}, 411, -32600, "Content-Length")
	})
	t.Run("order: invalid length after the session", func(t *testing.T) {
		req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(pingReq))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Content-Length", "abc")
		req.Header.Set("Mcp-Session-Id", "wrong")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		direct.add(t, "session", rec.Header())
		wantHTTPError(t, reply{rec.Code, rec.Header(), rec.Body.Bytes()}, 404, -32001, "")
	})
	ids.check(t)
	direct.check(t)
}

// padded is a ping of exactly n bytes.
func padded(n int) string {
	const head, tail = `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"`, `"}}`
	return head + strings.Repeat("x", n-len(head)-len(tail)) + tail
}

// TestHTTPOrigin is the origin rule: http(s) on exactly localhost,
// 127.0.0.1 or [::1], any port, and the origins configured as allowed
// (exactly); everything else denied.
func TestHTTPOrigin(t *testing.T) {
	t.Parallel()
	configured := []string{"https://app.example", "http://tool.example:8080"}
	allowed := []string{
		"http://localhost", "http://localhost:3000", "https://localhost", "https://localhost:8443",
		"http://127.0.0.1", "http://127.0.0.1:8765", "https://127.0.0.1:1",
		"http://[::1]", "http://[::1]:8080", "https://[::1]:65535",
		"http://localhost:3000/some/path",
	}
	denied := []string{
		"null", "file://", "file:///etc/passwd", "file://localhost",
		"https://example.com", "http://evil.test:3000",
		"http://localhost.attacker.test", "https://localhost.attacker.test:3000",
		"http://127.0.0.1.attacker.test", "http://127.0.0.1.nip.io",
		"http://attacker.test#localhost", "http://localhost@attacker.test",
		"http://127.0.0.2", "http://0.0.0.0", "http://[::2]", "http://[::ffff:127.0.0.1]",
		"ws://localhost", "wss://127.0.0.1", "ftp://localhost", "chrome-extension://abc",
		"localhost", "localhost:3000", "//localhost", "http//localhost", "%zz",
		"http://", "https://:3000",
		// a configured origin matches exactly: not another port, scheme or host
		"https://app.example:8443", "http://app.example", "https://app.example.attacker.test", "http://tool.example",
	}
	for _, c := range []struct {
		name     string
		origins  []string
		accepted []string
	}{
		{"none configured", nil, allowed},
		{"configured", configured, append(append([]string{}, allowed...), configured...)},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, url := newHTTP(t, mcpcoding.Options{Transport: mcpx.Transport{AllowedOrigins: c.origins}})
			for _, o := range c.accepted {
				r := post(t, url, hdr{"Origin": o}, pingReq)
				if r.status != 200 {
					t.Errorf("Origin %q: HTTP %d %s, want 200", o, r.status, r.body)
				}
			}
			refused := denied
			if c.origins == nil {
				refused = append(append([]string{}, denied...), configured...)
			}
			for _, o := range refused {
				wantHTTPErrorID(t, post(t, url, hdr{"Origin": o}, pingReq), 403, -32600, "1", "Origin denied")
			}
		})
	}
}

// TestHTTPDispatch: single messages, notifications, batches and the
// statuses of errors produced after dispatch.
func TestHTTPDispatch(t *testing.T) {
	t.Parallel()
	_, url := newHTTP(t, mcpcoding.Options{})
	var ids sessionIDs
	send := func(t *testing.T, body string) reply {
		t.Helper()
		r := post(t, url, nil, body)
		ids.add(t, body, r.header)
		return r
	}
	want202 := func(t *testing.T, r reply) {
		t.Helper()
		if r.status != 202 || len(r.body) != 0 {
			t.Fatalf("HTTP %d %q, want 202 without a body", r.status, r.body)
		}
	}
	t.Run("notification before initialize", func(t *testing.T) {
		want202(t, send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	})
	t.Run("request before initialize", func(t *testing.T) {
		r := send(t, `{"jsonrpc":"2.0","id":"a","method":"tools/list"}`)
		if r.status != 200 {
			t.Fatalf("HTTP %d", r.status)
		}
		decode(t, r.body).wantError(t, -32002, `"a"`, "Server not initialized")
	})
	if r := send(t, initReq); r.status != 200 {
		t.Fatalf("initialize: HTTP %d %s", r.status, r.body)
	}
	t.Run("notifications", func(t *testing.T) {
		for _, n := range []string{
			`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
			`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
			`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"session_id":"no-such-session"}}`,
			`{"jsonrpc":"2.0","method":"tools/list"}`,
			`{"jsonrpc":"2.0","method":"tools/list","id":null}`,
			`{"jsonrpc":"2.0","method":"no/such/method"}`,
			`{"jsonrpc":"1.0","method":"ping"}`,
			`{"jsonrpc":"2.0","method":"ping","params":[1]}`,
			`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"nope"}}`,
		} {
			want202(t, send(t, n))
		}
	})
	t.Run("errors after dispatch are 200", func(t *testing.T) {
		for _, c := range []struct {
			body string
			code int
			id   string
		}{
			{`{"jsonrpc":"1.0","id":7,"method":"ping"}`, -32600, "7"},
			{`{"jsonrpc":"2.0","id":true,"method":"ping"}`, -32600, "null"},
			{`{"jsonrpc":"2.0","id":7,"method":"ping","params":[]}`, -32602, "7"},
			{`{"jsonrpc":"2.0","id":7,"method":"nope"}`, -32601, "7"},
			{`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"nope"}}`, -32602, "7"},
		} {
			r := send(t, c.body)
			if r.status != 200 {
				t.Fatalf("%s: HTTP %d, want 200", c.body, r.status)
			}
			decode(t, r.body).wantError(t, c.code, c.id, "")
		}
	})
	t.Run("mixed batch", func(t *testing.T) {
		r := send(t, `[{"jsonrpc":"2.0","id":1,"method":"ping"},
			{"jsonrpc":"2.0","method":"notifications/initialized"},
			5,
			{"jsonrpc":"2.0","id":"x","method":"nope"},
			"str",
			{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"cursor":"c"}},
			null,
			[],
			{"jsonrpc":"2.0","id":4,"method":"ping"}]`)
		if r.status != 200 {
			t.Fatalf("HTTP %d %s", r.status, r.body)
		}
		wantCompact(t, r.body)
		var out []json.RawMessage
		if err := json.Unmarshal(r.body, &out); err != nil {
			t.Fatalf("batch answer %s: %v", r.body, err)
		}
		if len(out) != 8 {
			t.Fatalf("%d answers, want 8: %s", len(out), r.body)
		}
		if m := decode(t, out[0]); string(m.ID) != "1" || string(m.Result) != "{}" {
			t.Fatalf("answer 0: %s", out[0])
		}
		decode(t, out[1]).wantError(t, -32600, "null", "")
		decode(t, out[2]).wantError(t, -32601, `"x"`, "Method not found")
		decode(t, out[3]).wantError(t, -32600, "null", "")
		decode(t, out[4]).wantError(t, -32602, "3", "")
		decode(t, out[5]).wantError(t, -32600, "null", "")
		decode(t, out[6]).wantError(t, -32600, "null", "")
		if m := decode(t, out[7]); string(m.ID) != "4" || string(m.Result) != "{}" {
			t.Fatalf("answer 7: %s", out[7])
		}
	})
	t.Run("batch of notifications", func(t *testing.T) {
		want202(t, send(t, `[{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","method":"ping"}]`))
	})
	t.Run("batch of one", func(t *testing.T) {
		r := send(t, `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`)
		if r.status != 200 || !bytes.HasPrefix(r.body, []byte("[")) {
			t.Fatalf("HTTP %d %s, want a one-element array", r.status, r.body)
		}
	})
	t.Run("batch of non-objects", func(t *testing.T) {
		r := send(t, `[1,2]`)
		if r.status != 200 {
			t.Fatalf("HTTP %d %s", r.status, r.body)
		}
		var out []json.RawMessage
		json.Unmarshal(r.body, &out)
		if len(out) != 2 {
			t.Fatalf("answers %s", r.body)
		}
		for _, o := range out {
			decode(t, o).wantError(t, -32600, "null", "")
		}
	})
	t.Run("50 items", func(t *testing.T) {
		r := send(t, batchOf(50, pingReq))
		if r.status != 200 {
			t.Fatalf("HTTP %d %s", r.status, r.body)
		}
		var out []message
		if err := json.Unmarshal(r.body, &out); err != nil || len(out) != 50 {
			t.Fatalf("want 50 answers: %v %.300s", err, r.body)
		}
		for i, m := range out {
			if string(m.ID) != fmt.Sprint(i+1) {
				t.Fatalf("answer %d has id %s: batch order lost", i, m.ID)
			}
		}
	})
	t.Run("51 items", func(t *testing.T) {
		r := send(t, batchOf(51, `{"jsonrpc":"2.0","method":"notifications/initialized","id":1}`))
		m := wantHTTPError(t, r, 400, -32600, "")
		wantData(t, m, "max_items", 50.0)
	})
	ids.check(t)
}

// TestHTTPSessionIsProcessWide: one initialize serves every client, with
// or without the session header, and independent clients are served at
// once.
func TestHTTPSessionIsProcessWide(t *testing.T) {
	t.Parallel()
	_, url := newHTTP(t, mcpcoding.Options{})
	r := post(t, url, nil, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	decode(t, r.body).wantError(t, -32002, "1", "")
	first := post(t, url, nil, initReq)
	sid := first.header.Get("Mcp-Session-Id")
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h := hdr{}
			if i%2 == 0 {
				h["Mcp-Session-Id"] = sid
			}
			r := post(t, url, h, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, i))
			m := decode(t, r.body)
			m.resultMap(t)
			if string(m.ID) != fmt.Sprint(i) {
				t.Errorf("id %s, want %d", m.ID, i)
			}
			if r.header.Get("Mcp-Session-Id") != sid {
				t.Errorf("session id changed")
			}
		}()
	}
	wg.Wait()
	// A second server has its own id, and knows nothing of the first's.
	_, url2 := newHTTP(t, mcpcoding.Options{})
	r2 := post(t, url2, nil, pingReq)
	if r2.header.Get("Mcp-Session-Id") == sid {
		t.Fatal("two servers share a session id")
	}
	wantHTTPErrorID(t, post(t, url2, hdr{"Mcp-Session-Id": sid}, pingReq), 404, -32001, "1", "")
}
