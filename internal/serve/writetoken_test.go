package serve_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/serve"
)

// TestLoopbackMakesAWriteToken: served on loopback with no token
// configured, the server makes one that the dashboard's writes need; reads
// and the MCP endpoints keep their rules (open on loopback). With a
// configured token, that token is the one, and none is made.
func TestLoopbackMakesAWriteToken(t *testing.T) {
	dir := project(t)
	ts, srv := start(t, dir, serve.Options{})
	if !regexp.MustCompile(`^[A-Za-z0-9]{26,}$`).MatchString(srv.WriteToken) {
		t.Fatalf("write token %q: want a long random token", srv.WriteToken)
	}
	_, other := start(t, dir, serve.Options{})
	if other.WriteToken == srv.WriteToken {
		t.Error("two servers made the same token")
	}
	post := func(header map[string]string) int {
		req, _ := http.NewRequest("POST", ts.URL+"/api/issues", strings.NewReader(`{"title":"From the page"}`))
		req.Header.Set("Content-Type", "application/json")
		for k, v := range header {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := post(map[string]string{"Origin": ts.URL}); code != http.StatusUnauthorized {
		t.Errorf("a write without the token: %d, want 401", code)
	}
	if code := post(map[string]string{"Authorization": "Bearer " + srv.WriteToken}); code != http.StatusCreated {
		t.Errorf("a write with the made token: %d, want 201", code)
	}
	resp, err := http.Get(ts.URL + "/api/issues")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("reading without the token: %d", resp.StatusCode)
	}
	if _, err := connect(t, ts.URL+serve.PathTracker, nil); err != nil {
		t.Errorf("the tracker's MCP endpoint without a token: %v", err)
	}

	_, withToken := start(t, dir, serve.Options{Token: "configured"})
	if withToken.WriteToken != "" {
		t.Errorf("with a configured token the server made another: %q", withToken.WriteToken)
	}
}
