package dashboard_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/dashboard"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

// send makes a request with a JSON body and the given headers and cookies;
// it returns the status and the body.
func send(t *testing.T, client *http.Client, method, url, body string, header map[string]string, cookies ...*http.Cookie) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	for _, c := range cookies {
		req.AddCookie(c)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// tokenCookie opens /?token=tok and returns the cookie the answer sets and
// the page's key, which the redirect hands to the page's script.
func tokenCookie(t *testing.T, base, tok string) (*http.Cookie, string) {
	t.Helper()
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noRedirect.Get(base + "/?token=" + tok)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	key, ok := strings.CutPrefix(resp.Header.Get("Location"), "/?key=")
	if resp.StatusCode != http.StatusSeeOther || len(resp.Cookies()) != 1 || !ok || key == "" {
		t.Fatalf("/?token=: %d, Location %q, cookies %+v", resp.StatusCode, resp.Header.Get("Location"), resp.Cookies())
	}
	return resp.Cookies()[0], key
}

// TestWritesNeedTheTokenAndTheOrigin: with a write token (what serve makes
// on loopback), reading needs nothing, and a write needs the token — as a
// bearer header, or as the cookie with the page's own Origin. Without the
// token the page is told it is read-only and how to get write access.
func TestWritesNeedTheTokenAndTheOrigin(t *testing.T) {
	f := newFixture(t)
	ts, _ := serveDashboard(t, f, dashboard.Options{WriteToken: "w1"})
	c := ts.Client()
	var info dashboard.Info
	if code := getJSON(t, c, ts.URL+"/api/info", &info); code != 200 || !info.ReadOnly || !strings.Contains(info.WriteAccess, "?token=") {
		t.Errorf("info without the token: %d read_only=%v write_access=%q", code, info.ReadOnly, info.WriteAccess)
	}
	body := `{"title":"Made on the page","priority":2}`
	if code, out := send(t, c, "POST", ts.URL+"/api/issues", body, map[string]string{"Origin": ts.URL}); code != http.StatusUnauthorized || !strings.Contains(out, "read-only") || !strings.Contains(out, "?token=") {
		t.Errorf("a write without the token: %d %s", code, out)
	}
	if code, out := send(t, c, "POST", ts.URL+"/api/issues", body, map[string]string{"Authorization": "Bearer nope"}); code != http.StatusUnauthorized {
		t.Errorf("a write with a wrong token: %d %s", code, out)
	}
	cookie, key := tokenCookie(t, ts.URL, "w1")
	page := map[string]string{"Origin": ts.URL, dashboard.PageKeyHeader: key}
	if code, out := send(t, c, "POST", ts.URL+"/api/issues", body, nil, cookie); code != http.StatusForbidden || !strings.Contains(out, "Origin") {
		t.Errorf("a write with the cookie and no Origin: %d %s", code, out)
	}
	if code, _ := send(t, c, "POST", ts.URL+"/api/issues", body, map[string]string{"Origin": "https://evil.example"}, cookie); code != http.StatusForbidden {
		t.Errorf("a write with the cookie from a foreign Origin: %d", code)
	}
	// Another local page (any loopback origin may read, as every server
	// allows) must not ride the cookie: browsers send it to every port of
	// the host.
	if code, out := send(t, c, "POST", ts.URL+"/api/issues", body, map[string]string{"Origin": "http://localhost:1"}, cookie); code != http.StatusForbidden {
		t.Errorf("a write with the cookie from another local page: %d %s", code, out)
	}
	// A process that got the cookie (a page on another local port
	// receives it) can send any Origin header; it does not have the key
	// the page's script keeps, which no other port can read.
	if code, out := send(t, c, "POST", ts.URL+"/api/issues", body, map[string]string{"Origin": ts.URL}, cookie); code != http.StatusForbidden {
		t.Errorf("a write with the cookie and a forged Origin, without the page's key: %d %s", code, out)
	}
	if code, out := send(t, c, "POST", ts.URL+"/api/issues", body, map[string]string{"Origin": ts.URL, dashboard.PageKeyHeader: "guess"}, cookie); code != http.StatusForbidden {
		t.Errorf("a write with the cookie and a wrong page key: %d %s", code, out)
	}
	if code, out := send(t, c, "POST", ts.URL+"/api/issues", body, page, cookie); code != http.StatusCreated || !strings.Contains(out, "Made on the page") {
		t.Errorf("a write with the cookie from the page: %d %s", code, out)
	}
	if code, out := send(t, c, "POST", ts.URL+"/api/issues", `{"title":"By bearer"}`, map[string]string{"Authorization": "Bearer w1"}); code != http.StatusCreated {
		t.Errorf("a write with the bearer token: %d %s", code, out)
	}
	list, err := f.repo.ListIssues(context.Background(), store.IssueFilter{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	titles := map[string]bool{}
	for _, it := range list.Issues {
		titles[it.Title] = true
	}
	if !titles["Made on the page"] || !titles["By bearer"] || len(list.Issues) != 5 {
		t.Errorf("issues after the writes: %+v", list.Issues)
	}
	req, _ := http.NewRequest("GET", ts.URL+"/api/info", nil)
	req.AddCookie(cookie)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	json.NewDecoder(resp.Body).Decode(&info)
	resp.Body.Close()
	if info.ReadOnly {
		t.Error("info with the cookie: still read-only")
	}
}

// TestNoTokenNoWrites: a dashboard with no token at all never writes.
func TestNoTokenNoWrites(t *testing.T) {
	f := newFixture(t)
	ts, _ := serveDashboard(t, f, dashboard.Options{})
	if code, out := send(t, ts.Client(), "POST", ts.URL+"/api/issues", `{"title":"x"}`, map[string]string{"Origin": ts.URL}); code != http.StatusUnauthorized || !strings.Contains(out, "read-only") {
		t.Errorf("a write to a dashboard without a token: %d %s", code, out)
	}
}

// TestConfiguredTokenAllowsWrites: the token every request needs is also
// the one writes need. The cookie it is exchanged for is not the token, and
// a cookie holding the token itself opens nothing: the page's cookie is
// the dashboard's own secret.
func TestConfiguredTokenAllowsWrites(t *testing.T) {
	f := newFixture(t)
	ts, _ := serveDashboard(t, f, dashboard.Options{Token: "s3cret"})
	cookie, key := tokenCookie(t, ts.URL, "s3cret")
	if cookie.Value == "s3cret" || !cookie.HttpOnly || cookie.SameSite != http.SameSiteStrictMode {
		t.Errorf("cookie %+v: want a secret of its own, HttpOnly, SameSite=Strict", cookie)
	}
	if code, out := send(t, ts.Client(), "POST", ts.URL+"/api/issues", `{"title":"x"}`, map[string]string{"Origin": ts.URL, dashboard.PageKeyHeader: key}, cookie); code != http.StatusCreated {
		t.Errorf("a write with the configured token's cookie: %d %s", code, out)
	}
	forged := &http.Cookie{Name: dashboard.CookieName, Value: "s3cret"}
	if code, out := send(t, ts.Client(), "POST", ts.URL+"/api/issues", `{"title":"x"}`, map[string]string{"Origin": ts.URL}, forged); code != http.StatusUnauthorized {
		t.Errorf("a write with the token as the cookie: %d %s, want 401", code, out)
	}
	if code, _ := send(t, ts.Client(), "GET", ts.URL+"/api/info", "", nil, forged); code != http.StatusUnauthorized {
		t.Errorf("a read with the token as the cookie: %d, want 401", code)
	}
}
