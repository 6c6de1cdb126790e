package store_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/sudocode/sudocode/internal/racesize"
	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

// TestBlockedSetFollowsEveryChange: after each of a few hundred random
// changes (links made and removed, parents given, statuses moved to done
// and back, titles changed), ready, blocked, stats and status agree with the domain's rule
// applied to each issue alone (its blocked_by, walked link by link), and
// with a cache rebuilt from the files. The blocked set the cache keeps
// between changes can never drift from the graph. Under the race
// detector, 100 changes: SQLite's engine is instrumented too.
func TestBlockedSetFollowsEveryChange(t *testing.T) {
	e := newEnv(t)
	rng := rand.New(rand.NewPCG(7, 9))
	var issues, specs []string
	for i := range 14 {
		in := store.IssueInput{}
		if i > 4 && rng.IntN(3) == 0 {
			in.Parent = new(issues[rng.IntN(len(issues))])
		}
		issues = append(issues, e.issue("i", in))
	}
	for range 3 {
		specs = append(specs, e.spec("s", store.SpecInput{Design: "# s\n"}))
	}
	all := append(slices.Clone(issues), specs...)
	rels := []string{"blocks", "depends-on", "parent-child", "related"}
	issueStatuses := []string{"open", "in_progress", "blocked", "closed"}
	specStatuses := []string{"draft", "review", "approved", "deprecated"}
	for step := range racesize.Of(300, 100) {
		switch rng.IntN(5) {
		case 4: // a blocker's description is part of its waiters' rows
			title := fmt.Sprintf("t%d", step)
			if rng.IntN(4) == 0 {
				if _, err := e.r.UpdateSpec(e.ctx, specs[rng.IntN(len(specs))], store.SpecPatch{Title: &title}); err != nil {
					t.Fatal(err)
				}
			} else if _, err := e.r.UpdateIssue(e.ctx, issues[rng.IntN(len(issues))], store.IssuePatch{Title: &title}); err != nil {
				t.Fatal(err)
			}
		case 0, 1:
			from, to := all[rng.IntN(len(all))], all[rng.IntN(len(all))]
			e.r.Link(e.ctx, from, to, rels[rng.IntN(len(rels))]) // a cycle or self link is refused: fine
		case 2:
			from, to := all[rng.IntN(len(all))], all[rng.IntN(len(all))]
			e.r.Unlink(e.ctx, from, to, rels[rng.IntN(len(rels))])
		default:
			if rng.IntN(4) == 0 {
				if _, err := e.r.UpdateSpec(e.ctx, specs[rng.IntN(len(specs))], store.SpecPatch{Status: new(specStatuses[rng.IntN(4)])}); err != nil {
					t.Fatal(err)
				}
			} else if _, err := e.r.UpdateIssue(e.ctx, issues[rng.IntN(len(issues))], store.IssuePatch{Status: new(issueStatuses[rng.IntN(4)])}); err != nil {
				t.Fatal(err)
			}
		}
		if step%10 == 9 {
			e.checkReadiness(step)
		}
	}
	e.checkReadiness(-1)
	views := e.views()
	e.r.Close()
	e.r = nil
	removeCache(t, e.dir)
	e.next()
	for k, v := range e.views() {
		if views[k] != v {
			t.Errorf("%s differs once the cache is rebuilt from the files:\n kept    %s\n rebuilt %s", k, views[k], v)
		}
	}
}

// checkReadiness compares the store's ready and blocked views with the
// domain's rule applied to each issue through show.
func (e *env) checkReadiness(step int) {
	e.t.Helper()
	list, err := e.r.ListIssues(e.ctx, store.IssueFilter{Limit: 1000})
	if err != nil {
		e.t.Fatal(err)
	}
	var wantReady, wantBlocked []string
	for _, c := range list.Issues {
		d, err := e.r.ShowIssue(e.ctx, c.ID)
		if err != nil {
			e.t.Fatal(err)
		}
		st := tracker.IssueStatus(c.Status)
		if st == tracker.IssueOpen && len(d.BlockedBy) == 0 {
			wantReady = append(wantReady, c.ID)
		}
		if !st.Done() && (st == tracker.IssueBlocked || len(d.BlockedBy) > 0) {
			wantBlocked = append(wantBlocked, c.ID)
		}
	}
	ready, err := e.r.Ready(e.ctx, store.ReadyOptions{Issues: true, Limit: 1000})
	if err != nil {
		e.t.Fatal(err)
	}
	blocked, err := e.r.Blocked(e.ctx, store.BlockedOptions{Issues: true, Limit: 1000})
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
	var gotReady, gotBlocked []string
	for _, c := range *ready.Issues {
		gotReady = append(gotReady, c.ID)
	}
	for _, b := range *blocked.Issues {
		gotBlocked = append(gotBlocked, b.ID)
		d, _ := e.r.ShowIssue(e.ctx, b.ID)
		if !reflect.DeepEqual(b.BlockedBy, d.BlockedBy) {
			e.t.Errorf("step %d: blocked lists %s as blocked by %+v, show says %+v", step, b.ID, b.BlockedBy, d.BlockedBy)
		}
	}
	slices.Sort(gotReady)
	slices.Sort(gotBlocked)
	slices.Sort(wantReady)
	slices.Sort(wantBlocked)
	if !slices.Equal(gotReady, wantReady) || !slices.Equal(gotBlocked, wantBlocked) {
		e.t.Fatalf("step %d:\n ready   %v\n want    %v\n blocked %v\n want    %v", step, gotReady, wantReady, gotBlocked, wantBlocked)
	}
	if stats.Issues.Ready != len(wantReady) || stats.Issues.Blocked != len(wantBlocked) ||
		status.Issues.Ready != len(wantReady) || status.Issues.Blocked != len(wantBlocked) {
		e.t.Fatalf("step %d: stats say %d ready, %d blocked; status %d, %d; want %d, %d", step,
			stats.Issues.Ready, stats.Issues.Blocked, status.Issues.Ready, status.Issues.Blocked, len(wantReady), len(wantBlocked))
	}
	// The board's columns follow the same rule: its blocked column holds
	// the blocked issues, and its cards say which are ready.
	board, err := e.r.Board(e.ctx, store.BoardFilter{Limit: 1000})
	if err != nil {
		e.t.Fatal(err)
	}
	var boardReady, boardBlocked []string
	for _, c := range board.Cards {
		if c.Ready {
			boardReady = append(boardReady, c.ID)
		}
		if c.Column == string(tracker.IssueBlocked) {
			boardBlocked = append(boardBlocked, c.ID)
		}
	}
	slices.Sort(boardReady)
	slices.Sort(boardBlocked)
	if !slices.Equal(boardReady, wantReady) || !slices.Equal(boardBlocked, wantBlocked) || board.Counts[string(tracker.IssueBlocked)] != len(wantBlocked) {
		e.t.Fatalf("step %d: the board:\n ready   %v\n want    %v\n blocked %v (%d)\n want    %v", step, boardReady, wantReady, boardBlocked, board.Counts[string(tracker.IssueBlocked)], wantBlocked)
	}
}
