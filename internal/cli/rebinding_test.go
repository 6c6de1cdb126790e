package cli_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// hostStatus sends a valid MCP ping (POST) or a GET to url from this
// loopback connection with the Host header set to host, and returns the
// status and body.
func hostStatus(t *testing.T, method, url, host string) (int, string) {
	t.Helper()
	var body io.Reader
	if method == http.MethodPost {
		body = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	}
	req, _ := http.NewRequest(method, url, body)
	req.Host = host
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	return resp.StatusCode, string(b)
}

// wantRebindingRefused checks that every url answers its own loopback Host
// and refuses a foreign one with 403 and a JSON-RPC error saying why.
func wantRebindingRefused(t *testing.T, method string, urls ...string) {
	t.Helper()
	for _, url := range urls {
		own := strings.TrimPrefix(url, "http://")
		own = own[:strings.IndexByte(own, '/')]
		if code, body := hostStatus(t, method, url, own); code == http.StatusForbidden {
			t.Errorf("%s %s with its own Host: 403 %.200s", method, url, body)
		}
		for _, foreign := range []string{"evil.example", "evil.example:" + own[strings.LastIndexByte(own, ':')+1:], "127.0.0.1.evil.example"} {
			code, body := hostStatus(t, method, url, foreign)
			var e struct {
				ID    any `json:"id"`
				Error struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if code != http.StatusForbidden || json.Unmarshal([]byte(body), &e) != nil || e.Error.Code != -32600 ||
				!strings.Contains(e.Error.Message, "Host") {
				t.Errorf("%s %s with Host %s: %d %.200q; want 403 and a JSON-RPC -32600 error naming the Host", method, url, foreign, code, body)
			}
		}
	}
}

// A page on a domain the attacker rebinds to 127.0.0.1 reaches a loopback
// server with its own name in Host: every endpoint of sudocode serve must
// refuse it, the MCP servers, /metrics and the dashboard alike.
func TestServeRefusesForeignHost(t *testing.T) {
	t.Parallel()
	dir := serveRepo(t)
	_, doc := startServe(t, childEnv(t), true, "--addr", "127.0.0.1:0", "--dir", dir, "--json")
	var info struct {
		URL string            `json:"url"`
		MCP map[string]string `json:"mcp"`
	}
	if err := json.Unmarshal([]byte(doc), &info); err != nil {
		t.Fatalf("%v: %s", err, doc)
	}
	var mcpURLs []string
	for _, name := range []string{"tracker", "rulesets", "coding", "agent"} {
		mcpURLs = append(mcpURLs, info.MCP[name])
	}
	wantRebindingRefused(t, http.MethodPost, mcpURLs...)
	wantRebindingRefused(t, http.MethodGet, info.URL+"metrics", info.URL, info.URL+"api/issues")
}

// The coding server alone (coding-tools-mcp is the same command) and an SDK
// server alone refuse a foreign Host on /mcp and /metrics.
func TestServersRefuseForeignHost(t *testing.T) {
	t.Parallel()
	coding := startHTTP(t, childEnv(t), sudocodeBin, "mcp", "coding", "--workspace", t.TempDir(), "--port", "0")
	wantRebindingRefused(t, http.MethodPost, coding.url)
	wantRebindingRefused(t, http.MethodGet, strings.TrimSuffix(coding.url, "/mcp")+"/metrics")

	rulesets := startHTTP(t, childEnv(t), sudocodeBin, "mcp", "rulesets", "--http", "127.0.0.1:0", "--store", t.TempDir())
	wantRebindingRefused(t, http.MethodPost, rulesets.url)
	wantRebindingRefused(t, http.MethodGet, strings.TrimSuffix(rulesets.url, "/mcp")+"/metrics")
}
