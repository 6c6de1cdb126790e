package dashboard_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/dashboard"
)

// TestSpecEditsRelocateAnchors: a spec saved from the page goes through
// the store's update, so its feedback anchors move as through the CLI;
// feedback added at a line and moved through its statuses lands in the
// tracker; the spec view lists implementing issues and open feedback.
func TestSpecEditsRelocateAnchors(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	ts, _ := serveDashboard(t, f, dashboard.Options{WriteToken: "w"})
	c := ts.Client()
	auth := map[string]string{"Authorization": "Bearer w"}
	if _, err := f.repo.Link(ctx, f.waiting, f.spec, "implements"); err != nil {
		t.Fatal(err)
	}
	before, err := f.repo.ShowFeedback(ctx, f.fbValid)
	if err != nil {
		t.Fatal(err)
	}
	sd, err := f.repo.ShowSpec(ctx, f.spec)
	if err != nil {
		t.Fatal(err)
	}
	edited := "# Login flow\n\nTwo new lines\nat the top.\n" + strings.TrimPrefix(sd.Content, "# Login flow\n")
	body, _ := json.Marshal(map[string]any{"content": edited})
	if code, out := send(t, c, "PATCH", ts.URL+"/api/specs/"+f.spec, string(body), auth); code != 200 {
		t.Fatalf("PATCH spec: %d %s", code, out)
	}
	after, err := f.repo.ShowFeedback(ctx, f.fbValid)
	if err != nil {
		t.Fatal(err)
	}
	if after.Location == nil || before.Location == nil || after.Location.LineNumber != before.Location.LineNumber+3 {
		t.Errorf("the anchor did not move down 3 lines: before %+v, after %+v", before.Location, after.Location)
	}
	fb := fmt.Sprintf(`{"issue_id":%q,"line":3,"type":"question","content":"Why two lines?"}`, f.open)
	code, out := send(t, c, "POST", ts.URL+"/api/specs/"+f.spec+"/feedback", fb, auth)
	if code != http.StatusCreated {
		t.Fatalf("add feedback: %d %s", code, out)
	}
	var added struct{ ID string }
	json.Unmarshal([]byte(out), &added)
	if code, out := send(t, c, "POST", ts.URL+"/api/feedback/"+added.ID+"/status", `{"status":"resolved","resolution":"one is enough"}`, auth); code != 200 {
		t.Errorf("resolve: %d %s", code, out)
	}
	got, err := f.repo.ShowFeedback(ctx, added.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != "resolved" || got.Resolution == nil || *got.Resolution != "one is enough" || got.Anchor.LineNumber != 3 {
		t.Errorf("the feedback: %+v", got.Feedback)
	}
	if code, _ := send(t, c, "POST", ts.URL+"/api/feedback/"+added.ID+"/status", `{"status":"bogus"}`, auth); code != 400 {
		t.Errorf("a bogus status: %d, want 400", code)
	}
	var v dashboard.SpecView
	if code := getJSON(t, c, ts.URL+"/api/specs/"+f.spec, &v); code != 200 {
		t.Fatal(code)
	}
	if len(v.Implementers) != 1 || v.Implementers[0].ID != f.waiting || v.Implementers[0].Title != "Implement login" || v.OpenFeedback != 2 {
		t.Errorf("implementers %+v, open feedback %d; want %s and 2", v.Implementers, v.OpenFeedback, f.waiting)
	}
}
