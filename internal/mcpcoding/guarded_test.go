package mcpcoding_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/mcpcoding"
	"github.com/sudocode/sudocode/internal/mcpx"
)

// TestGuardedHandler: behind mcpx.Guard (as `sudocode serve` mounts it),
// the guard is the one check of Origin and token — a foreign page is
// refused before its token is looked at, in the guard's words — and the
// caller the guard found is the handler's: each client of a token file
// gets its own session.
func TestGuardedHandler(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tokens")
	if err := os.WriteFile(path, []byte("alice alice-token-0123456789\nbob bob-token-0123456789\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	auth, err := mcpx.NewAuth("", path, nil)
	if err != nil {
		t.Fatal(err)
	}
	tr := mcpx.Transport{Auth: auth}
	s := newServer(t, mcpcoding.Options{Transport: tr, Guarded: true})
	srv := httptest.NewServer(mcpx.Guard(s.HTTPHandler(), tr))
	t.Cleanup(srv.Close)
	url := srv.URL + "/mcp"
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`

	r := post(t, url, hdr{"Origin": "https://evil.example"}, init)
	if r.status != http.StatusForbidden || strings.Contains(string(r.body), "jsonrpc") {
		t.Errorf("a foreign page without a token: %d %s, want the guard's 403", r.status, r.body)
	}
	r = post(t, url, hdr{"Authorization": "Bearer wrong"}, init)
	if r.status != http.StatusUnauthorized || r.header.Get("WWW-Authenticate") != `Bearer realm="sudocode"` {
		t.Errorf("a wrong token: %d %v, want the guard's 401", r.status, r.header)
	}
	ids := map[string]string{}
	for _, who := range []string{"alice", "bob"} {
		r = post(t, url, hdr{"Authorization": "Bearer " + who + "-token-0123456789"}, init)
		if r.status != http.StatusOK || !strings.Contains(string(r.body), `"protocolVersion":"2025-06-18"`) {
			t.Fatalf("%s: %d %s", who, r.status, r.body)
		}
		ids[who] = r.header.Get("Mcp-Session-Id")
	}
	if ids["alice"] == "" || ids["alice"] == ids["bob"] {
		t.Errorf("session ids %v: want one per client the guard named", ids)
	}
}
