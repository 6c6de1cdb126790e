package dashboard_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/dashboard"
	"github.com/sudocode/sudocode/internal/tracker"
)

// TestCommentEndpoint: POST /api/issues/{id}/comments is a write like the
// others (the token, JSON), answers with the comment, and the issue's
// GET returns it with the history; the tracker's refusals keep their
// codes.
func TestCommentEndpoint(t *testing.T) {
	f := newFixture(t)
	ts, _ := serveDashboard(t, f, dashboard.Options{WriteToken: "w1"})
	c := ts.Client()
	url := ts.URL + "/api/issues/" + f.open + "/comments"
	bearer := map[string]string{"Authorization": "Bearer w1"}
	if code, out := send(t, c, "POST", url, `{"body":"no token"}`, map[string]string{"Origin": ts.URL}); code != http.StatusUnauthorized {
		t.Errorf("a comment without the token: %d %s", code, out)
	}
	if code, out := send(t, c, "POST", url, `{"body":"Starting on the **store**."}`, bearer); code != http.StatusCreated ||
		!strings.Contains(out, `"body":"Starting on the **store**."`) || !strings.Contains(out, `"issue_id":"`+f.open+`"`) {
		t.Errorf("a comment with the token: %d %s", code, out)
	}
	for _, bad := range []struct {
		url, body string
		code      int
		says      string
	}{
		{ts.URL + "/api/issues/demo-zzzz/comments", `{"body":"lost"}`, http.StatusNotFound, "not found"},
		{url, `{"body":"  "}`, http.StatusBadRequest, "must not be empty"},
		{url, `{"text":"misspelt"}`, http.StatusBadRequest, "text"},
	} {
		if code, out := send(t, c, "POST", bad.url, bad.body, bearer); code != bad.code || !strings.Contains(out, bad.says) {
			t.Errorf("POST %s %s: %d %s; want %d saying %q", bad.url, bad.body, code, out, bad.code, bad.says)
		}
	}
	var d tracker.IssueDetail
	if code := getJSON(t, c, ts.URL+"/api/issues/"+f.open, &d); code != 200 {
		t.Fatalf("GET the issue: %d", code)
	}
	if len(d.Comments) != 1 || d.Comments[0].Body != "Starting on the **store**." {
		t.Errorf("the issue's comments: %+v", d.Comments)
	}
	if len(d.History) != 1 || d.History[0].Field != tracker.ChangeLink { // the fixture's link to it
		t.Errorf("the issue's history: %+v", d.History)
	}
}
