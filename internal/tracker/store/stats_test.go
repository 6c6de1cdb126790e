package store_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

// zeros is every value of an enumeration counted 0.
func zeros[T ~string](vs []T) map[string]int {
	out := map[string]int{}
	for _, v := range vs {
		out[string(v)] = 0
	}
	return out
}

// with returns m with some counts set.
func with(m map[string]int, kv ...any) map[string]int {
	out := map[string]int{}
	for k, v := range m {
		out[k] = v
	}
	for i := 0; i < len(kv); i += 2 {
		out[kv[i].(string)] = kv[i+1].(int)
	}
	return out
}

func TestStatsEmpty(t *testing.T) {
	e := newEnv(t)
	s, err := e.r.Stats(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	var want tracker.Stats
	want.Specs.ByStatus, want.Specs.ByType = zeros(tracker.SpecStatuses), zeros(tracker.SpecTypes)
	want.Issues.ByStatus, want.Issues.ByType = zeros(tracker.IssueStatuses), zeros(tracker.IssueTypes)
	want.Relationships.ByType = zeros(tracker.RelTypes)
	if !reflect.DeepEqual(s, want) {
		t.Errorf("stats of an empty tracker:\n got %+v\nwant %+v", s, want)
	}
	// The shape the tracker's requirement fixes, key for key.
	raw, _ := json.Marshal(s)
	const shape = `{"specs":{"total":0,"by_status":{"approved":0,"deprecated":0,"draft":0,"review":0},"by_type":{"api":0,"architecture":0,"database":0,"feature":0,"research":0},"ready":0},` +
		`"issues":{"total":0,"by_status":{"blocked":0,"closed":0,"in_progress":0,"open":0},"by_type":{"bug":0,"chore":0,"epic":0,"feature":0,"task":0},"ready":0,"blocked":0},` +
		`"relationships":{"total":0,"by_type":{"blocks":0,"depends-on":0,"discovered-from":0,"implements":0,"parent-child":0,"references":0,"related":0}},` +
		`"recent_activity":{"specs_updated":0,"issues_updated":0,"issues_created":0,"issues_closed":0}}`
	if string(raw) != shape {
		t.Errorf("stats JSON:\n got %s\nwant %s", raw, shape)
	}
}

// TestStats counts by every enumeration, and recent activity over the
// last 7 days of the repo's clock.
func TestStats(t *testing.T) {
	e := newEnv(t)
	// Day 0.
	e.clk.Set(t0)
	i1 := e.issue("old bug", store.IssueInput{Type: "bug"})
	i2 := e.issue("old feature", store.IssueInput{Type: "feature"})
	s1 := e.spec("old spec", store.SpecInput{Type: "api"})
	if _, err := e.r.CloseIssues(e.ctx, []string{i1}, ""); err != nil {
		t.Fatal(err)
	}
	// Day 10.
	e.clk.Set(t0.Add(10 * day))
	i3 := e.issue("new task", store.IssueInput{})
	i4 := e.issue("new epic", store.IssueInput{Type: "epic"})
	i5 := e.issue("new chore", store.IssueInput{Type: "chore", Parent: &i4})
	if _, err := e.r.UpdateIssue(e.ctx, i2, store.IssuePatch{Priority: new(1)}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.r.CloseIssues(e.ctx, []string{i4}, "done"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.r.UpdateIssue(e.ctx, i5, store.IssuePatch{Status: new("in_progress")}); err != nil {
		t.Fatal(err)
	}
	s2 := e.spec("new spec", store.SpecInput{Type: "research"})
	if _, err := e.r.UpdateSpec(e.ctx, s2, store.SpecPatch{Status: new("review")}); err != nil {
		t.Fatal(err)
	}
	s3 := e.spec("approved spec", store.SpecInput{})
	if _, err := e.r.UpdateSpec(e.ctx, s3, store.SpecPatch{Status: new("approved")}); err != nil {
		t.Fatal(err)
	}
	e.link(i3, i2, "blocks")
	e.link(i3, s1, "implements")
	e.link(s2, s1, "depends-on")

	var want tracker.Stats
	want.Specs.Total = 3
	want.Specs.ByStatus = with(zeros(tracker.SpecStatuses), "draft", 1, "review", 1, "approved", 1)
	want.Specs.ByType = with(zeros(tracker.SpecTypes), "api", 1, "research", 1, "feature", 1)
	want.Specs.Ready = 1 // s1; s2 waits for s1
	want.Issues.Total = 5
	want.Issues.ByStatus = with(zeros(tracker.IssueStatuses), "open", 2, "closed", 2, "in_progress", 1)
	want.Issues.ByType = with(zeros(tracker.IssueTypes), "bug", 1, "feature", 1, "task", 1, "epic", 1, "chore", 1)
	want.Issues.Ready = 1   // i2; i3 waits for it
	want.Issues.Blocked = 1 // i3
	want.Relationships.Total = 4
	want.Relationships.ByType = with(zeros(tracker.RelTypes), "blocks", 1, "implements", 1, "depends-on", 1, "parent-child", 1)
	ra := &want.RecentActivity
	ra.SpecsUpdated, ra.IssuesUpdated, ra.IssuesCreated, ra.IssuesClosed = 2, 4, 3, 1

	for _, c := range []struct {
		at     int // days after t0
		recent [4]int
	}{
		{10, [4]int{2, 4, 3, 1}},
		{16, [4]int{2, 4, 3, 1}}, // day 10 is 6 days ago
		{18, [4]int{0, 0, 0, 0}}, // more than 7 days ago
		{6, [4]int{3, 5, 5, 2}},  // everything: day 0 is 6 days ago, day 10 in the "future"
	} {
		e.clk.Set(t0.Add(time.Duration(c.at) * day))
		s, err := e.r.Stats(e.ctx)
		if err != nil {
			t.Fatal(err)
		}
		w := want
		w.RecentActivity.SpecsUpdated, w.RecentActivity.IssuesUpdated = c.recent[0], c.recent[1]
		w.RecentActivity.IssuesCreated, w.RecentActivity.IssuesClosed = c.recent[2], c.recent[3]
		if !reflect.DeepEqual(s, w) {
			t.Errorf("stats on day %d:\n got %+v\nwant %+v", c.at, s, w)
		}
	}
}

// TestStatus: the summary, with the ready and blocked ids only when
// verbose, and then always as lists.
func TestStatus(t *testing.T) {
	e := newEnv(t)
	a := e.issue("A", store.IssueInput{Priority: new(1)})
	b := e.issue("B", store.IssueInput{})
	c := e.issue("C", store.IssueInput{Priority: new(0)})
	e.spec("S", store.SpecInput{})

	check := func(verbose bool, want string) {
		t.Helper()
		s, err := e.r.Status(e.ctx, verbose)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := json.Marshal(s)
		if got := string(raw); got != want {
			t.Errorf("status verbose=%v:\n got %s\nwant %s", verbose, got, want)
		}
	}
	specs := `{"specs":{"total":1,"by_status":{"approved":0,"deprecated":0,"draft":1,"review":0}},`
	check(false, specs+`"issues":{"total":3,"by_status":{"blocked":0,"closed":0,"in_progress":0,"open":3},"ready":3,"blocked":0}}`)
	// Nothing blocked: blocked_ids is an empty list, not missing.
	check(true, specs+`"issues":{"total":3,"by_status":{"blocked":0,"closed":0,"in_progress":0,"open":3},"ready":3,"blocked":0,`+
		`"ready_ids":["`+c+`","`+a+`","`+b+`"],"blocked_ids":[]}}`)

	e.link(a, b, "blocks")
	if _, err := e.r.UpdateIssue(e.ctx, c, store.IssuePatch{Status: new("blocked")}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.r.UpdateIssue(e.ctx, b, store.IssuePatch{Status: new("in_progress")}); err != nil {
		t.Fatal(err)
	}
	// Nothing ready: ready_ids is an empty list.
	check(true, specs+`"issues":{"total":3,"by_status":{"blocked":1,"closed":0,"in_progress":1,"open":1},"ready":0,"blocked":2,`+
		`"ready_ids":[],"blocked_ids":["`+c+`","`+a+`"]}}`)
	if !strings.HasPrefix(a, "tt-") {
		t.Errorf("issue id %q does not start with the prefix", a)
	}
}
