package dashboard_test

import (
	"context"
	"net/url"
	"testing"

	"github.com/sudocode/sudocode/internal/dashboard"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

// TestBoardFollowsReadyBlocked: the columns and their counts follow the
// rule of `ready` and `blocked`, not the manual status alone: an open or
// in-progress issue with an unfinished blocker sits in the blocked column,
// and a card names its blocker by title and shows its assignee and tags.
func TestBoardFollowsReadyBlocked(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	// An in-progress issue that the open issue blocks, with an assignee.
	who := "ana"
	prog, err := f.repo.CreateIssue(ctx, store.IssueInput{Title: "Wire the login page", Assignee: &who, Tags: []string{"web"}})
	if err != nil {
		t.Fatal(err)
	}
	st := "in_progress"
	if _, err := f.repo.UpdateIssue(ctx, prog.ID, store.IssuePatch{Status: &st}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.repo.Link(ctx, prog.ID, f.open, "depends-on"); err != nil {
		t.Fatal(err)
	}
	ts, _ := serveDashboard(t, f, dashboard.Options{})
	var b dashboard.Board
	if code := getJSON(t, ts.Client(), ts.URL+"/api/issues", &b); code != 200 {
		t.Fatalf("GET /api/issues: %d", code)
	}
	status, err := f.repo.Status(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	if b.Counts["blocked"] != status.Issues.Blocked || b.Counts["open"] != 1 || b.Counts["in_progress"] != 1 || b.Blocked != 2 {
		t.Errorf("counts %v (blocked %d); want open 1, in_progress 1, blocked %d as `blocked` says", b.Counts, b.Blocked, status.Issues.Blocked)
	}
	col := map[string]dashboard.BoardItem{}
	for _, it := range b.Issues {
		col[it.ID] = it
	}
	if c := col[f.waiting]; c.Column != "blocked" || c.Status != "open" || len(c.BlockedBy) != 1 || c.BlockedBy[0].Title != "Design the token store" {
		t.Errorf("the open issue with a blocker: %+v; want it in the blocked column, its blocker named", c)
	}
	if c := col[prog.ID]; c.Column != "blocked" || c.Status != "in_progress" || c.Assignee != "ana" || len(c.Tags) != 1 || c.Tags[0] != "web" {
		t.Errorf("the in-progress issue with a blocker: %+v", c)
	}
	if c := col[f.open]; c.Column != "open" || !c.Ready {
		t.Errorf("the ready issue: %+v", c)
	}
	if c := col[f.progress]; c.Column != "in_progress" {
		t.Errorf("the in-progress issue: %+v", c)
	}
}

// TestBoardFilters: type, priority, assignee, tag and text narrow every
// column and its count.
func TestBoardFilters(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	who, p0 := "ana", 0
	if _, err := f.repo.CreateIssue(ctx, store.IssueInput{Title: "Rotate the signing key", Type: "chore", Priority: &p0, Assignee: &who, Tags: []string{"security", "ops"}}); err != nil {
		t.Fatal(err)
	}
	ts, _ := serveDashboard(t, f, dashboard.Options{})
	for q, want := range map[string]int{
		"type=feature": 1, "type=chore": 1, "priority=0": 1, "priority=1": 1, "assignee=ana": 1, "assignee=bob": 0,
		"tag=security": 1, "tag=secur": 0, "text=token": 1, "text=TOKEN": 1, "text=100%25": 0, "text=login&type=feature": 1, "": 4,
	} {
		var b dashboard.Board
		if code := getJSON(t, ts.Client(), ts.URL+"/api/issues?"+q, &b); code != 200 {
			t.Errorf("%s: %d", q, code)
			continue
		}
		n := 0
		for _, c := range b.Counts {
			n += c
		}
		if len(b.Issues) != want || n != want {
			t.Errorf("%s: %d cards, counts %v; want %d", q, len(b.Issues), b.Counts, want)
		}
	}
	var bad struct {
		Error struct{ Code, Message string }
	}
	if code := getJSON(t, ts.Client(), ts.URL+"/api/issues?type=epicc", &bad); code != 400 || bad.Error.Code != "invalid_argument" {
		t.Errorf("an unknown type: %d %+v", code, bad)
	}
	if code := getJSON(t, ts.Client(), ts.URL+"/api/issues?priority="+url.QueryEscape("high"), &bad); code != 400 {
		t.Errorf("a priority that is not a number: %d", code)
	}
}
