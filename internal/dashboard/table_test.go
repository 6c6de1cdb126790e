package dashboard_test

import (
	"context"
	"testing"

	"github.com/sudocode/sudocode/internal/dashboard"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

// TestIssueTable: /api/issue-table sorts by a column either way, groups
// with each group's size (status by the board's columns), follows the
// board's filters, and refuses an unknown sort or group.
func TestIssueTable(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	who := "zoe"
	if _, err := f.repo.CreateIssue(ctx, store.IssueInput{Title: "Audit the logs", Assignee: &who}); err != nil {
		t.Fatal(err)
	}
	ts, _ := serveDashboard(t, f, dashboard.Options{})
	var tb dashboard.IssueTable
	if code := getJSON(t, ts.Client(), ts.URL+"/api/issue-table?sort=title", &tb); code != 200 || tb.Total != 4 || len(tb.Rows) != 4 {
		t.Fatalf("sort=title: %d %+v", code, tb)
	}
	if tb.Rows[0].Title != "Audit the logs" || tb.Rows[3].Title[:5] != "Write" {
		t.Errorf("by title: %q … %q", tb.Rows[0].Title, tb.Rows[3].Title)
	}
	getJSON(t, ts.Client(), ts.URL+"/api/issue-table?sort=title&dir=desc", &tb)
	if tb.Rows[0].Title[:5] != "Write" || tb.Dir != "desc" {
		t.Errorf("by title, descending: first %q", tb.Rows[0].Title)
	}
	getJSON(t, ts.Client(), ts.URL+"/api/issue-table?group=status", &tb)
	got := map[string]int{}
	for _, g := range tb.Groups {
		got[g.Key] = g.Count
	}
	if len(tb.Groups) != 3 || tb.Groups[0].Key != "open" || got["open"] != 2 || got["in_progress"] != 1 || got["blocked"] != 1 {
		t.Errorf("groups by status: %+v", tb.Groups)
	}
	if tb.Rows[len(tb.Rows)-1].Column != "blocked" {
		t.Errorf("rows not in their groups' order: %+v", tb.Rows)
	}
	getJSON(t, ts.Client(), ts.URL+"/api/issue-table?group=priority&sort=id", &tb)
	if len(tb.Groups) != 2 || tb.Groups[0].Key != "1" || tb.Groups[0].Count != 1 || tb.Groups[1].Key != "2" || tb.Rows[0].Priority != 1 {
		t.Errorf("groups by priority: %+v, first row %+v", tb.Groups, tb.Rows[0])
	}
	for i := 2; i < len(tb.Rows); i++ {
		if tb.Rows[i-1].ID > tb.Rows[i].ID {
			t.Errorf("in a group, rows not by id: %s before %s", tb.Rows[i-1].ID, tb.Rows[i].ID)
		}
	}
	getJSON(t, ts.Client(), ts.URL+"/api/issue-table?group=assignee&assignee=zoe", &tb)
	if tb.Total != 1 || len(tb.Groups) != 1 || tb.Groups[0].Key != "zoe" {
		t.Errorf("filtered by assignee, grouped: %+v", tb)
	}
	var bad struct{ Error struct{ Code string } }
	for _, q := range []string{"sort=size", "group=type", "dir=up"} {
		if code := getJSON(t, ts.Client(), ts.URL+"/api/issue-table?"+q, &bad); code != 400 || bad.Error.Code != "invalid_argument" {
			t.Errorf("%s: %d %+v", q, code, bad)
		}
	}
	var as struct {
		Assignees []store.TableGroup `json:"assignees"`
	}
	if code := getJSON(t, ts.Client(), ts.URL+"/api/assignees", &as); code != 200 || len(as.Assignees) != 1 || as.Assignees[0].Key != "zoe" {
		t.Errorf("assignees: %d %+v", code, as)
	}
}
