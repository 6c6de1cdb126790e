package mcpcoding_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/mcpcoding"
	"github.com/sudocode/sudocode/internal/mcpx"
)

// meta2026 is the _meta of a 2026-07-28 request.
const meta2026 = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"0"},"io.modelcontextprotocol/clientCapabilities":{}}`

// req2026 is a request of method with params (a JSON object's members,
// without braces) and the 2026-07-28 _meta.
func req2026(id int, method, params string) string {
	if params != "" {
		params += ","
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{%s%s}}`, id, method, params, meta2026)
}

// post2026 posts body with the headers a 2026-07-28 client sends along
// (Mcp-Method, and Mcp-Name for tools/call, from the body) unless h sets
// them.
func post2026(t *testing.T, url string, h hdr, body string) reply {
	t.Helper()
	var msg struct {
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	json.Unmarshal([]byte(body), &msg)
	all := hdr{"Mcp-Method": msg.Method}
	if msg.Method == "tools/call" {
		all["Mcp-Name"] = msg.Params.Name
	}
	for k, v := range h {
		all[k] = v
	}
	return post(t, url, all, body)
}

// A request of 2026-07-28 stands alone over HTTP: no initialize, no
// session id, its _meta checked, that revision's errors with its HTTP
// statuses (the request's id echoed); the handshake methods are gone. The
// profile's handshake clients are served as before, next to it.
func TestHTTP2026Requests(t *testing.T) {
	t.Parallel()
	_, url := newHTTP(t, mcpcoding.Options{})
	h := hdr{"MCP-Protocol-Version": "2026-07-28"}
	for _, c := range []struct {
		name         string
		h            hdr
		body         string
		status, code int
		msg          string
	}{
		{"no _meta", h, `{"jsonrpc":"2.0","id":7,"method":"server/discover","params":{}}`, 400, -32602, "protocol version in _meta"},
		{"no capabilities", h, `{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, 400, -32602, "capabilities"},
		{"header mismatch", hdr{"MCP-Protocol-Version": "2025-06-18"}, req2026(7, "tools/list", ""), 400, -32020, "Header mismatch"},
		{"no header", hdr{}, req2026(7, "tools/list", ""), 400, -32020, "Header mismatch"},
		{"unknown version", h, strings.Replace(req2026(7, "tools/list", ""), `"2026-07-28"`, `"2099-01-01"`, 1), 400, -32020, "Header mismatch"},
		{"initialize is gone", h, req2026(7, "initialize", `"protocolVersion":"2026-07-28"`), 404, -32601, "Method not found"},
		{"ping is gone", h, req2026(7, "ping", ""), 404, -32601, "Method not found"},
		{"logging/setLevel is gone", h, req2026(7, "logging/setLevel", `"level":"debug"`), 404, -32601, "Method not found"},
		{"unknown method", h, req2026(7, "resources/list", ""), 404, -32601, "Method not found"},
		{"invalid tool arguments", h, req2026(7, "tools/call", `"name":"read_file","arguments":{}`), 400, -32602, "Invalid arguments"},
		{"Mcp-Method mismatch", hdr{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"}, req2026(7, "tools/call", `"name":"list_dir","arguments":{}`), 400, -32020, "Mcp-Method"},
		{"Mcp-Name mismatch", hdr{"MCP-Protocol-Version": "2026-07-28", "Mcp-Name": "read_file"}, req2026(7, "tools/call", `"name":"list_dir","arguments":{}`), 400, -32020, "Mcp-Name"},
	} {
		r := post2026(t, url, c.h, c.body)
		if r.status != c.status {
			t.Errorf("%s: status %d, want %d: %s", c.name, r.status, c.status, r.body)
			continue
		}
		decode(t, r.body).wantError(t, c.code, "7", c.msg)
		// Without the 2026-07-28 header the transport is the profile's,
		// whose every answer carries the session id.
		if id := r.header.Get("Mcp-Session-Id"); id != "" && c.h["MCP-Protocol-Version"] == "2026-07-28" {
			t.Errorf("%s: a 2026-07-28 answer carries Mcp-Session-Id %q", c.name, id)
		}
	}

	unsupported := post2026(t, url, hdr{"MCP-Protocol-Version": "2099-01-01"}, strings.ReplaceAll(req2026(8, "tools/list", ""), `"2026-07-28"`, `"2099-01-01"`))
	m := decode(t, unsupported.body)
	m.wantError(t, -32022, "8", "Unsupported MCP protocol version")
	wantData(t, m, "requested", "2099-01-01")
	wantData(t, m, "supported", []any{"2026-07-28", "2025-06-18"})

	for _, method := range []string{"server/discover", "tools/list"} {
		r := post2026(t, url, h, req2026(9, method, ""))
		if r.status != http.StatusOK || r.header.Get("Mcp-Session-Id") != "" {
			t.Fatalf("%s: status %d, session %q: %s", method, r.status, r.header.Get("Mcp-Session-Id"), r.body)
		}
		res := decode(t, r.body).resultMap(t)
		if res["resultType"] != "complete" || res["ttlMs"] != float64(3600000) || res["cacheScope"] != "public" {
			t.Errorf("%s: resultType %v, ttlMs %v, cacheScope %v; want complete, 3600000, public", method, res["resultType"], res["ttlMs"], res["cacheScope"])
		}
	}
	call := post2026(t, url, h, req2026(10, "tools/call", `"name":"list_dir","arguments":{"path":"."}`))
	if res := decode(t, call.body).resultMap(t); call.status != 200 || res["resultType"] != "complete" || res["isError"] == true {
		t.Errorf("tools/call without initialize: %d %s", call.status, call.body)
	}

	// The handshake is untouched: before initialize, -32002 with a
	// session id, as the profile says.
	legacy := post(t, url, hdr{"MCP-Protocol-Version": "2025-06-18"}, `{"jsonrpc":"2.0","id":11,"method":"tools/list"}`)
	if legacy.status != 200 || legacy.header.Get("Mcp-Session-Id") == "" {
		t.Errorf("handshake client: status %d, session %q", legacy.status, legacy.header.Get("Mcp-Session-Id"))
	}
	decode(t, legacy.body).wantError(t, -32002, "11", "Server not initialized")
}

// Behind a token, only the client that asked may keep a list.
func TestHTTP2026CachingBehindToken(t *testing.T) {
	t.Parallel()
	const token = "coding-token-0123456789abcdef0123"
	_, url := newHTTP(t, mcpcoding.Options{Transport: mcpx.Transport{Token: token}})
	r := post2026(t, url, hdr{"MCP-Protocol-Version": "2026-07-28", "Authorization": "Bearer " + token}, req2026(1, "tools/list", ""))
	if res := decode(t, r.body).resultMap(t); res["cacheScope"] != "private" || res["ttlMs"] != float64(mcpx.FixedTTLMillis) {
		t.Errorf("tools/list behind a token: ttlMs %v, cacheScope %v; want %d, private", res["ttlMs"], res["cacheScope"], mcpx.FixedTTLMillis)
	}
}

// Mcp-Method and Mcp-Name match the message with whitespace around their
// values (HTTP does not count it as part of a value); the request reaches
// the handler untrimmed, as another front end may hand it over.
func TestHTTP2026HeadersAroundWhitespace(t *testing.T) {
	t.Parallel()
	h := newServer(t, mcpcoding.Options{}).HTTPHandler()
	body := req2026(5, "tools/call", `"name":"list_dir","arguments":{"path":"."}`)
	r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Content-Length", fmt.Sprint(len(body)))
	r.Header.Set("MCP-Protocol-Version", "2026-07-28")
	r.Header["Mcp-Method"] = []string{" tools/call\t"}
	r.Header["Mcp-Name"] = []string{"\tlist_dir "}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != http.StatusOK || strings.Contains(w.Body.String(), `"error"`) {
		t.Fatalf("padded headers: HTTP %d %s", w.Code, w.Body.String())
	}
}
