package serve_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/serve"
)

// TestNoAuthMakesAWriteToken: served without a token (NoAuth), the MCP
// endpoints and the dashboard's reads answer anyone, and the server makes
// a token that the dashboard's writes need. With a token, that token opens
// the dashboard, and none is made.
func TestNoAuthMakesAWriteToken(t *testing.T) {
	dir := project(t)
	ts, srv := start(t, dir, serve.Options{NoAuth: true})
	if !regexp.MustCompile(`^[A-Za-z0-9]{26,}$`).MatchString(srv.OpenToken) {
		t.Fatalf("write token %q: want a long random token", srv.OpenToken)
	}
	_, other := start(t, dir, serve.Options{NoAuth: true})
	if other.OpenToken == srv.OpenToken {
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
	if code := post(map[string]string{"Authorization": "Bearer " + srv.OpenToken}); code != http.StatusCreated {
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
	for _, path := range serve.Paths() {
		if code := initialize(t, ts.URL+path, nil); code != http.StatusOK {
			t.Errorf("%s without a token: %d, want 200", path, code)
		}
	}

	_, withToken := start(t, dir, serve.Options{Token: "configured-0123456789"})
	if withToken.OpenToken != "configured-0123456789" {
		t.Errorf("with a token, the page opens with %q, want the token", withToken.OpenToken)
	}
}
