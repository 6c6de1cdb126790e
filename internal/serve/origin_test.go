package serve_test

import (
	"net/http"
	"testing"

	"github.com/sudocode/sudocode/internal/serve"
)

// TestConfiguredOrigins: each of the four servers answers a browser's
// Origin the same way: one listed in AllowedOrigins, or a loopback page
// (exactly localhost, 127.0.0.1 or [::1]), gets a working MCP session;
// any other origin, look-alikes included, is refused with 403.
func TestConfiguredOrigins(t *testing.T) {
	dir := project(t)
	ts, srv := start(t, dir, serve.Options{AllowedOrigins: []string{"https://app.example"}})
	if srv.Tasks == nil {
		t.Fatalf("no orchestrator: %s", srv.TasksUnavailable)
	}
	for _, path := range serve.Paths() {
		for _, origin := range []string{"https://app.example", "http://localhost:3000", "http://127.0.0.1", "http://[::1]:8080"} {
			s, err := connect(t, ts.URL+path, map[string]string{"Origin": origin})
			if err != nil {
				t.Errorf("%s from %s: %v", path, origin, err)
				continue
			}
			if len(toolNames(t, s)) == 0 {
				t.Errorf("%s from %s: no tools", path, origin)
			}
		}
		for _, origin := range []string{"https://evil.example", "https://app.example:8443", "http://app.example", "https://app.example.evil.test",
			"null", "http://127.0.0.2", "http://[::ffff:127.0.0.1]", "http://localhost.evil.test"} {
			if code := post(t, ts.URL+path, map[string]string{"Origin": origin}); code != http.StatusForbidden {
				t.Errorf("%s from %s: %d, want 403", path, origin, code)
			}
		}
	}
}
