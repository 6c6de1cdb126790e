package store_test

import (
	"slices"
	"testing"

	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

// TestReadinessFollowsTheDomain: for every relationship type and every
// status of the target, what the store's queries say (ready, blocked, the
// counts of stats and status, an issue's blocked_by) is what the domain's
// rules say (RelType.Blocking, IssueStatus.Done, SpecStatus.Done). A
// blocking type or a done status added to the domain alone, with SQL of
// its own left behind, fails here.
func TestReadinessFollowsTheDomain(t *testing.T) {
	for _, rt := range tracker.RelTypes {
		if rt == tracker.RelParentChild {
			continue // passes blockers down rather than blocking: ready_test.go
		}
		for _, st := range tracker.IssueStatuses {
			t.Run(string(rt)+"/issue "+string(st), func(t *testing.T) {
				t.Parallel()
				e := newEnv(t)
				waiter := e.issue("waiter", store.IssueInput{})
				target := e.issue("target", store.IssueInput{})
				if _, err := e.r.UpdateIssue(e.ctx, target, store.IssuePatch{Status: new(string(st))}); err != nil {
					t.Fatal(err)
				}
				e.link(waiter, target, string(rt))
				e.checkBlocked(waiter, rt.Blocking() && !st.Done())
			})
		}
		for _, st := range tracker.SpecStatuses {
			t.Run(string(rt)+"/spec "+string(st), func(t *testing.T) {
				t.Parallel()
				e := newEnv(t)
				waiter := e.issue("waiter", store.IssueInput{})
				target := e.spec("target", store.SpecInput{Design: "# target\n"})
				if _, err := e.r.UpdateSpec(e.ctx, target, store.SpecPatch{Status: new(string(st))}); err != nil {
					t.Fatal(err)
				}
				e.link(waiter, target, string(rt))
				e.checkBlocked(waiter, rt.Blocking() && !st.Done())
			})
		}
	}
}

// checkBlocked checks every view of the open issue id agrees that it is
// blocked (want) or ready.
func (e *env) checkBlocked(id string, want bool) {
	e.t.Helper()
	e.next()
	ready, err := e.r.Ready(e.ctx, store.ReadyOptions{Issues: true, Limit: 100})
	if err != nil {
		e.t.Fatal(err)
	}
	blocked, err := e.r.Blocked(e.ctx, store.BlockedOptions{Issues: true, Limit: 100})
	if err != nil {
		e.t.Fatal(err)
	}
	stats, err := e.r.Stats(e.ctx)
	if err != nil {
		e.t.Fatal(err)
	}
	status, err := e.r.Status(e.ctx, true)
	if err != nil {
		e.t.Fatal(err)
	}
	show, err := e.r.ShowIssue(e.ctx, id)
	if err != nil {
		e.t.Fatal(err)
	}
	isReady := slices.ContainsFunc(*ready.Issues, func(c tracker.Compact) bool { return c.ID == id })
	isBlocked := slices.ContainsFunc(*blocked.Issues, func(b tracker.BlockedItem) bool { return b.ID == id })
	for _, c := range []struct {
		what string
		got  bool
	}{
		{"not in ready", !isReady},
		{"in blocked", isBlocked},
		{"has blocked_by", len(show.BlockedBy) > 0},
		{"in status's blocked ids", slices.Contains(status.Issues.BlockedIDs, id)},
		{"not in status's ready ids", !slices.Contains(status.Issues.ReadyIDs, id)},
	} {
		if c.got != want {
			e.t.Errorf("%s: %v, want %v", c.what, c.got, want)
		}
	}
	if stats.Issues.Blocked != len(*blocked.Issues) || stats.Issues.Ready != len(*ready.Issues) {
		e.t.Errorf("stats: ready %d, blocked %d; the lists hold %d and %d", stats.Issues.Ready, stats.Issues.Blocked, len(*ready.Issues), len(*blocked.Issues))
	}
}
