package serve_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/rulesets/sqlitestore"
	"github.com/sudocode/sudocode/internal/serve"
)

// initialize is the first request of an MCP client, sent with nothing but
// the given headers.
func initialize(t *testing.T, url string, header map[string]string, cookies ...*http.Cookie) int {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	for _, c := range cookies {
		req.AddCookie(c)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// pageCookie opens /?token=token as a browser does and returns the cookie
// the answer sets.
func pageCookie(t *testing.T, base, token string) *http.Cookie {
	t.Helper()
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noRedirect.Get(base + "/?token=" + token)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || len(resp.Cookies()) != 1 {
		t.Fatalf("/?token=: %d, cookies %+v", resp.StatusCode, resp.Cookies())
	}
	return resp.Cookies()[0]
}

// TestServeNeedsACredential: a server that can run code is not built
// without a token (or a token file) unless it is told to go without.
func TestServeNeedsACredential(t *testing.T) {
	rs, err := sqlitestore.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	srv, err := serve.New(context.Background(), serve.Options{Dir: project(t), Rulesets: rs, Worktrees: t.TempDir()})
	if err == nil {
		srv.Close()
		t.Fatal("served with no token")
	}
	if !strings.Contains(err.Error(), "token") {
		t.Errorf("error %q does not say a token is needed", err)
	}
}

// TestEveryEndpointNeedsTheToken: on loopback, every MCP endpoint refuses a
// client without the token — the agent server, which runs commands, first
// of all — and serves one with it.
func TestEveryEndpointNeedsTheToken(t *testing.T) {
	ts, _ := start(t, project(t), serve.Options{Token: "s3cret-0123456789abcdef"})
	for _, path := range serve.Paths() {
		if code := initialize(t, ts.URL+path, nil); code != http.StatusUnauthorized {
			t.Errorf("initialize %s without the token: %d, want 401", path, code)
		}
		if code := initialize(t, ts.URL+path, map[string]string{"Authorization": "Bearer s3cret-0123456789abcdef"}); code != http.StatusOK {
			t.Errorf("initialize %s with the token: %d, want 200", path, code)
		}
	}
}

// TestPageCookieIsNotTheToken: the cookie a browser gets for the dashboard
// is a secret of its own: it opens the dashboard, and nothing under /mcp/,
// sent as a bearer token or as the cookie (browsers send a host's cookies
// to every port, so another local page's server may receive it).
func TestPageCookieIsNotTheToken(t *testing.T) {
	const token = "s3cret-0123456789abcdef"
	ts, _ := start(t, project(t), serve.Options{Token: token})
	cookie := pageCookie(t, ts.URL, token)
	if cookie.Value == token || strings.Contains(cookie.Value, token) {
		t.Fatalf("the cookie holds the server's token")
	}
	if !cookie.HttpOnly || cookie.SameSite != http.SameSiteStrictMode {
		t.Errorf("cookie HttpOnly=%v SameSite=%v, want HttpOnly and Strict", cookie.HttpOnly, cookie.SameSite)
	}
	for _, path := range serve.Paths() {
		if code := initialize(t, ts.URL+path, map[string]string{"Authorization": "Bearer " + cookie.Value}); code != http.StatusUnauthorized {
			t.Errorf("%s with the cookie's value as the bearer token: %d, want 401", path, code)
		}
		if code := initialize(t, ts.URL+path, nil, cookie); code != http.StatusUnauthorized {
			t.Errorf("%s with the cookie: %d, want 401", path, code)
		}
	}
	req, _ := http.NewRequest("GET", ts.URL+"/api/info", nil)
	req.AddCookie(cookie)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("the dashboard with the cookie: %d, want 200", resp.StatusCode)
	}
	req, _ = http.NewRequest("GET", ts.URL+"/api/info", nil)
	req.Header.Set("Authorization", "Bearer "+cookie.Value)
	if resp, err = http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("the dashboard with the cookie's value as a bearer token: %d, want 401 (a cookie, not a token)", resp.StatusCode)
	}
}
