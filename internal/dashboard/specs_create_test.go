package dashboard_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/dashboard"
	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

// TestSpecCreate: a spec created from the page is the tracker's, with its
// markdown and the status asked for; a bad status or type writes nothing.
func TestSpecCreate(t *testing.T) {
	f := newFixture(t)
	ts, _ := serveDashboard(t, f, dashboard.Options{WriteToken: "w"})
	c := ts.Client()
	auth := map[string]string{"Authorization": "Bearer w"}
	body := `{"title":"Sessions","type":"api","status":"review","priority":1,"content":"# Sessions\n\nThey expire.\n","tags":["auth"]}`
	code, out := send(t, c, "POST", ts.URL+"/api/specs", body, auth)
	if code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, out)
	}
	var made tracker.Spec
	if err := json.Unmarshal([]byte(out), &made); err != nil {
		t.Fatal(err)
	}
	d, err := f.repo.ShowSpec(context.Background(), made.ID)
	if err != nil {
		t.Fatal(err)
	}
	if d.Title != "Sessions" || d.Status != tracker.SpecReview || d.Type != "api" || d.Priority != 1 || !strings.Contains(d.Content, "They expire.") || len(d.Tags) != 1 {
		t.Errorf("the spec in the tracker: %+v", d.Spec)
	}
	for _, bad := range []string{`{"title":"x","status":"done"}`, `{"title":"x","type":"novel"}`, `{"title":""}`} {
		if code, out := send(t, c, "POST", ts.URL+"/api/specs", bad, auth); code != http.StatusBadRequest {
			t.Errorf("%s: %d %s, want 400", bad, code, out)
		}
	}
	if list, err := f.repo.ListSpecs(context.Background(), store.SpecFilter{}); err != nil || list.Total != 2 {
		t.Errorf("%d specs after the refused ones, want 2 (%v)", list.Total, err)
	}
}

// TestSpecFormEnums: the page offers the tracker's spec statuses and types,
// in its order.
func TestSpecFormEnums(t *testing.T) {
	src, err := os.ReadFile("assets/specform.js")
	if err != nil {
		t.Fatal(err)
	}
	quote := func(vs []string) string { return "['" + strings.Join(vs, "', '") + "']" }
	var st, ty []string
	for _, s := range tracker.SpecStatuses {
		st = append(st, string(s))
	}
	for _, s := range tracker.SpecTypes {
		ty = append(ty, string(s))
	}
	for _, want := range []string{"STATUSES = " + quote(st), "TYPES = " + quote(ty)} {
		if !strings.Contains(string(src), want) {
			t.Errorf("specform.js lacks %s", want)
		}
	}
}
