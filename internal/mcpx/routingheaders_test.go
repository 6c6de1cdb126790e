package mcpx

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A 2026-07-28 request's Mcp-Method and Mcp-Name match its message with
// whitespace around their values, as HTTP reads a field's value: what a
// client or a proxy leaves there is not part of it. The request reaches
// the handler as a server behind another front end may hand it over, its
// values untrimmed.
func TestRoutingHeadersAroundWhitespace(t *testing.T) {
	h := Handler(testServer(), Transport{}, quietLogger())
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"0"},"io.modelcontextprotocol/clientCapabilities":{}}`
	body := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},` + meta + `}}`
	for _, padded := range []struct{ method, name string }{
		{" tools/call", "echo "},
		{"\ttools/call\t", " \techo"},
	} {
		r := httptest.NewRequest(http.MethodPost, Path, strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		r.Header.Set("MCP-Protocol-Version", ModernProtocol)
		r.Header["Mcp-Method"] = []string{padded.method}
		r.Header["Mcp-Name"] = []string{padded.name}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "echo: hi") {
			t.Errorf("Mcp-Method %q, Mcp-Name %q: HTTP %d %s", padded.method, padded.name, w.Code, w.Body.String())
		}
	}
}
