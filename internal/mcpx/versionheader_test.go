package mcpx

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// A request whose MCP-Protocol-Version header names a revision the server
// does not speak is refused before dispatch with a JSON-RPC error a
// client can read, carrying the request's id when its body has one (MCP
// 2026-07-28), null otherwise.
func TestUnsupportedVersionHeader(t *testing.T) {
	url := startHandler(t, Transport{})
	for _, c := range []struct{ body, id string }{
		{`{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{}}`, "5"},
		{`{"jsonrpc":"2.0","id":"req-9","method":"tools/list","params":{}}`, `"req-9"`},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, "null"},
		{`[{"jsonrpc":"2.0","id":5,"method":"tools/list"}]`, "null"},
		{`{"jsonrpc":`, "null"},
	} {
		resp := post(t, url, strings.NewReader(c.body), map[string]string{"MCP-Protocol-Version": "1999-01-01"})
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var msg struct {
			ID    json.RawMessage `json:"id"`
			Error struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
				Data    struct {
					Supported []string `json:"supported"`
					Requested string   `json:"requested"`
				} `json:"data"`
			} `json:"error"`
		}
		if resp.StatusCode != http.StatusBadRequest || json.Unmarshal(raw, &msg) != nil {
			t.Fatalf("body %s: HTTP %d %s, want 400 and a JSON-RPC error", c.body, resp.StatusCode, raw)
		}
		if string(msg.ID) != c.id || msg.Error.Code != -32600 || !strings.Contains(msg.Error.Message, "Unsupported MCP protocol version") ||
			msg.Error.Data.Requested != "1999-01-01" || len(msg.Error.Data.Supported) == 0 {
			t.Errorf("body %s: %s; want id %s, -32600, the versions supported and the one requested", c.body, raw, c.id)
		}
	}
}
