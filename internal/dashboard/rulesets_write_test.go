package dashboard_test

import (
	"context"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/dashboard"
	"github.com/sudocode/sudocode/internal/rulesets"
)

// TestRulesetWrites: the page creates, edits, tags and deletes rulesets
// through the library (its validation and messages), reads a ruleset's
// history and the diff between two versions, and restores one.
func TestRulesetWrites(t *testing.T) {
	f := newFixture(t)
	ts, _ := serveDashboard(t, f, dashboard.Options{WriteToken: "w"})
	c := ts.Client()
	auth := map[string]string{"Authorization": "Bearer w"}
	lib := rulesets.Library{Store: f.rules}
	ctx := context.Background()
	if code, out := send(t, c, "POST", ts.URL+"/api/rulesets", `{"name":"py_style","description":"Python","markdown":"# Py\n\n- black\n","tags":["py"]}`, auth); code != 201 {
		t.Fatalf("create: %d %s", code, out)
	}
	if code, out := send(t, c, "POST", ts.URL+"/api/rulesets", `{"name":"py_style","description":"again","markdown":"x"}`, auth); code != 409 || !strings.Contains(out, "already exists") ||
		!strings.Contains(out, "open it on the Rulesets page and edit it") || strings.Contains(out, "upsert_ruleset") {
		t.Errorf("create a taken name: %d %s", code, out)
	}
	if code, out := send(t, c, "POST", ts.URL+"/api/rulesets", `{"name":"bad name","description":"d","markdown":"x"}`, auth); code != 400 {
		t.Errorf("create a bad name: %d %s", code, out)
	}
	if code, out := send(t, c, "PATCH", ts.URL+"/api/rulesets/py_style", `{"markdown":"# Py\n\n- ruff\n","tags":["py","lint"]}`, auth); code != 200 {
		t.Fatalf("edit: %d %s", code, out)
	}
	got, err := lib.Get(ctx, "py_style")
	if err != nil {
		t.Fatal(err)
	}
	if got.Markdown != "# Py\n\n- ruff\n" || strings.Join(got.Tags, ",") != "py,lint" || got.Description != "Python" {
		t.Errorf("after the edit: %+v", got)
	}
	var hist dashboard.RulesetHistory
	if code := getJSON(t, c, ts.URL+"/api/rulesets/py_style/history", &hist); code != 200 || len(hist.Changes) != 2 || hist.Changes[0].Version != 2 || hist.Changes[0].By != "tester" {
		t.Fatalf("history: %d %+v", code, hist)
	}
	var diff dashboard.RulesetDiff
	if code := getJSON(t, c, ts.URL+"/api/rulesets/py_style/diff?from=1&to=2", &diff); code != 200 || !strings.Contains(diff.Diff, "-- black") || !strings.Contains(diff.Diff, "+- ruff") {
		t.Errorf("diff 1..2: %d %q", code, diff.Diff)
	}
	if code, out := send(t, c, "POST", ts.URL+"/api/rulesets/py_style/restore", `{"version":1}`, auth); code != 200 {
		t.Errorf("restore: %d %s", code, out)
	}
	if got, _ := lib.Get(ctx, "py_style"); got.Markdown != "# Py\n\n- black\n" {
		t.Errorf("after restoring 1: %q", got.Markdown)
	}
	if code, out := send(t, c, "DELETE", ts.URL+"/api/rulesets/py_style", ``, auth); code != 200 {
		t.Errorf("delete: %d %s", code, out)
	}
	if _, err := lib.Get(ctx, "py_style"); err == nil {
		t.Error("the ruleset is still there after the delete")
	}
	if code, _ := send(t, c, "DELETE", ts.URL+"/api/rulesets/py_style", ``, nil); code != 401 {
		t.Errorf("delete without the token: %d", code)
	}
}
