package store_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/racesize"
	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/store"
	"github.com/sudocode/sudocode/internal/tracker/trackertest"
)

// TestJSONLStaysCanonical makes random changes of every kind and checks
// after each batch that every JSONL file is canonical (each line the
// canonical encoding of its record, sorted by id, a final newline) and
// holds what the cache holds; at the end, a cache rebuilt from the files
// shows the same. Past 500 issues new ids grow a character, so ids of two
// lengths are mixed in one file. Under the race detector, 60 changes
// after the same bulk: each check shows every issue through SQLite's
// instrumented engine.
func TestJSONLStaysCanonical(t *testing.T) {
	n := racesize.Of(900, 60)
	if testing.Short() {
		n = 250
	}
	e := newEnv(t)
	rng := rand.New(rand.NewPCG(1, 2))
	var issues, specs, fbs []string
	type link struct{ from, to, typ string }
	var links []link
	pick := func(ids []string) string { return ids[rng.IntN(len(ids))] }
	word := func() string { return strings.Repeat("x", rng.IntN(40)) }
	body := func() string {
		ls := []string{"# Title", "", "## Section A", "alpha", "beta", "", "## Section B", "gamma", "delta"}
		rng.Shuffle(len(ls), func(i, j int) { ls[i], ls[j] = ls[j], ls[i] })
		return lines(ls...)
	}
	// The first issues come in bulk, in one change: enough that later ids
	// are longer.
	if !testing.Short() {
		bulk := make([]store.IssueInput, 510)
		for i := range bulk {
			bulk[i].Title = fmt.Sprintf("bulk %d", i)
		}
		created, err := e.r.CreateIssues(e.ctx, bulk)
		if err != nil {
			t.Fatal(err)
		}
		for _, is := range created {
			issues = append(issues, is.ID)
		}
	}
	for i := range n {
		var err error
		switch op := rng.IntN(10); {
		case op <= 1 || len(issues) < 3:
			in := store.IssueInput{Title: "issue " + word(), Type: string(tracker.IssueTypes[rng.IntN(5)]), Priority: new(rng.IntN(5))}
			if len(issues) > 0 && rng.IntN(4) == 0 {
				in.Parent = new(pick(issues))
			}
			var is tracker.Issue
			if is, err = e.r.CreateIssue(e.ctx, in); err == nil {
				issues = append(issues, is.ID)
			}
		case op == 2:
			_, err = e.r.UpdateIssue(e.ctx, pick(issues), store.IssuePatch{Title: new("updated " + word()),
				Status: new(string(tracker.IssueStatuses[rng.IntN(4)])), Tags: &[]string{word()}})
		case op == 3:
			_, err = e.r.CloseIssues(e.ctx, []string{pick(issues), pick(issues)}, "")
		case op == 4 || op == 5:
			all := append(append([]string{}, issues...), specs...)
			l := link{pick(all), pick(all), string(tracker.RelTypes[rng.IntN(7)])}
			if _, err = e.r.Link(e.ctx, l.from, l.to, l.typ); err == nil {
				links = append(links, l)
			} else if c := fault.CodeOf(err); c == fault.Conflict || c == fault.Invalid {
				err = nil // a cycle or a self link
			}
		case op == 6 && len(links) > 0:
			k := rng.IntN(len(links))
			l := links[k]
			if _, err = e.r.Unlink(e.ctx, l.from, l.to, l.typ); fault.CodeOf(err) == fault.NotFound {
				err = nil // linked twice, unlinked once already
			}
			links = append(links[:k], links[k+1:]...)
		case op == 7 || len(specs) == 0:
			var s tracker.Spec
			if s, err = e.r.CreateSpec(e.ctx, store.SpecInput{Title: "spec " + word(), Design: body()}); err == nil {
				specs = append(specs, s.ID)
			}
		case op == 8:
			if rng.IntN(2) == 0 {
				_, err = e.r.UpdateSpec(e.ctx, pick(specs), store.SpecPatch{Content: new(body()), Status: new(string(tracker.SpecStatuses[rng.IntN(4)]))})
			} else if len(fbs) > 0 {
				_, err = e.r.SetFeedbackStatus(e.ctx, pick(fbs), tracker.FeedbackStatuses[rng.IntN(4)], new(word()))
			}
		default:
			var f tracker.Feedback
			if f, err = e.r.AddFeedback(e.ctx, store.FeedbackInput{IssueID: pick(issues), SpecID: pick(specs),
				Content: "fb " + word(), Line: new(1 + rng.IntN(9))}); err == nil {
				fbs = append(fbs, f.ID)
			} else if strings.Contains(err.Error(), " is blank: ") {
				err = nil // the shuffled body's blank lines take no anchor
			}
		}
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if i%50 == 49 || i == n-1 {
			e.checkCanonical(fmt.Sprintf("after step %d", i), len(issues), len(specs), len(fbs))
			if t.Failed() {
				return
			}
		}
	}
	e.next()
	files, views := e.snapshot(), e.views()
	e.r.Close()
	e.r = nil
	removeCache(t, e.dir)
	e.next()
	if got := e.views(); !reflect.DeepEqual(got, views) {
		t.Errorf("the views differ after rebuilding the cache")
	}
	sameSnapshot(t, "rebuilding the cache", files, e.snapshot())
}

// checkCanonical checks the three JSONL files are canonical and hold the
// counts expected, as the cache does.
func (e *env) checkCanonical(when string, nIssues, nSpecs, nFeedback int) {
	e.t.Helper()
	// Each file is what the codec writes for the records it holds.
	is := trackertest.ReadRecords[tracker.IssueRecord](e.t, e.dir)
	ss := trackertest.ReadRecords[tracker.SpecRecord](e.t, e.dir)
	fs := trackertest.ReadRecords[tracker.Feedback](e.t, e.dir)
	if len(is) != nIssues || len(ss) != nSpecs || len(fs) != nFeedback {
		e.t.Errorf("%s: the files hold %d issues, %d specs, %d feedback; want %d, %d, %d", when, len(is), len(ss), len(fs), nIssues, nSpecs, nFeedback)
	}
	il, err1 := e.r.ListIssues(e.ctx, store.IssueFilter{Limit: 1 << 20})
	sl, err2 := e.r.ListSpecs(e.ctx, store.SpecFilter{Limit: 1 << 20})
	fl, err3 := e.r.ListFeedback(e.ctx, store.FeedbackFilter{Limit: 1 << 20})
	if err1 != nil || err2 != nil || err3 != nil || il.Total != nIssues || sl.Total != nSpecs || fl.Total != nFeedback {
		e.t.Errorf("%s: the cache holds %d issues, %d specs, %d feedback (%v %v %v)", when, il.Total, sl.Total, fl.Total, err1, err2, err3)
	}
	// Each issue's record in the file is the one the cache shows.
	for _, rec := range is {
		d, err := e.r.ShowIssue(e.ctx, rec.ID)
		if err != nil || !reflect.DeepEqual(d.Issue, rec.Issue) || !reflect.DeepEqual(d.Relationships.Outgoing, rec.Relationships) {
			e.t.Errorf("%s: issue %s differs between the file and the cache (%v)", when, rec.ID, err)
			return
		}
	}
}
