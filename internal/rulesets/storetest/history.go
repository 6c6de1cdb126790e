package storetest

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/rulesets"
)

func mustHistory(t *testing.T, s rulesets.Store, name string, limit int) []rulesets.Change {
	t.Helper()
	h, err := s.History(context.Background(), name, limit)
	if err != nil {
		t.Fatalf("History(%s): %v", name, err)
	}
	return h
}

// describe is a change in one line: "TIME BY ACTION FIELDS".
func describe(h []rulesets.Change) string {
	var lines []string
	for _, c := range h {
		lines = append(lines, fmt.Sprintf("%s %s %s %s", c.Time.Format(time.TimeOnly), c.By, c.Action, strings.Join(c.Fields, ",")))
	}
	return strings.Join(lines, "\n")
}

func testHistory(t *testing.T, s rulesets.Store) {
	ctx := context.Background()
	p := full("team_rules", "d", "m", "go")
	p.By = "alice"
	mustUpsert(t, s, p, t0)
	mustUpsert(t, s, rulesets.Patch{Name: "team_rules", Description: str("d2"), By: "bob"}, t0.Add(time.Minute))
	mustUpsert(t, s, rulesets.Patch{Name: "team_rules", Markdown: str("m2"), Tags: []string{}, SetTags: true, By: "carol"}, t0.Add(2*time.Minute))
	// Refused changes leave no trace.
	if _, err := s.Upsert(ctx, rulesets.Patch{Name: "never", Markdown: str("m"), By: "mallory"}, t0); err == nil {
		t.Fatal("create without description accepted")
	}
	if err := s.Delete(ctx, "absent", "mallory", t0); err == nil {
		t.Fatal("delete of an absent ruleset accepted")
	}
	if err := s.Delete(ctx, "team_rules", "dave", t0.Add(3*time.Minute)); err != nil {
		t.Fatal(err)
	}
	// The name comes back: its history goes on.
	if err := s.Create(ctx, rulesets.Ruleset{Name: "team_rules", Description: "d", Markdown: "m", Tags: []string{},
		CreatedAt: t0.Add(4 * time.Minute), LastModified: t0.Add(4 * time.Minute)}, "erin"); err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		"10:34:00 erin created description,markdown,tags",
		"10:33:00 dave deleted ",
		"10:32:00 carol updated markdown,tags",
		"10:31:00 bob updated description",
		"10:30:00 alice created description,markdown,tags",
	}, "\n")
	if got := describe(mustHistory(t, s, "team_rules", rulesets.MaxHistory)); got != want {
		t.Fatalf("history:\n%s\nwant:\n%s", got, want)
	}
	if got := describe(mustHistory(t, s, "team_rules", 2)); got != strings.Join(strings.Split(want, "\n")[:2], "\n") {
		t.Fatalf("history limited to 2:\n%s", got)
	}
	for _, name := range []string{"never", "absent", "other"} {
		if h := mustHistory(t, s, name, 10); len(h) != 0 {
			t.Fatalf("history of %s: %v", name, describe(h))
		}
	}
	// The history is not a ruleset: lists and names do not show it.
	if names, err := s.Names(ctx); err != nil || strings.Join(names, ",") != "team_rules" {
		t.Fatalf("names = %v, %v", names, err)
	}
	if items, err := s.Search(ctx, "*"); err != nil || len(items) != 1 {
		t.Fatalf("search * = %v, %v", items, err)
	}
}

func testHistoryCap(t *testing.T, s rulesets.Store) {
	mustUpsert(t, s, full("busy", "d", "m"), t0)
	for i := 1; i <= rulesets.MaxHistory+20; i++ {
		mustUpsert(t, s, rulesets.Patch{Name: "busy", Description: str(fmt.Sprint(i)), By: fmt.Sprintf("w%d", i)}, t0)
	}
	h := mustHistory(t, s, "busy", rulesets.MaxHistory+50)
	if len(h) != rulesets.MaxHistory {
		t.Fatalf("kept %d changes, want %d", len(h), rulesets.MaxHistory)
	}
	if h[0].By != fmt.Sprintf("w%d", rulesets.MaxHistory+20) || h[len(h)-1].By != "w21" {
		t.Fatalf("kept from %s to %s, want the newest", h[len(h)-1].By, h[0].By)
	}
}

// Writers racing on one name: one create and every update are recorded,
// each once, whatever the order.
func testHistoryRacing(t *testing.T, s rulesets.Store) {
	const writers = 8
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := full("raced_history", fmt.Sprintf("d%d", i), "m")
			p.By = fmt.Sprintf("w%d", i)
			if _, err := s.Upsert(context.Background(), p, t0); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	h := mustHistory(t, s, "raced_history", rulesets.MaxHistory)
	creates, by := 0, map[string]bool{}
	for _, c := range h {
		if c.Action == rulesets.ActionCreated {
			creates++
		}
		by[c.By] = true
	}
	if len(h) != writers || creates != 1 || len(by) != writers || h[len(h)-1].Action != rulesets.ActionCreated {
		t.Fatalf("history of %d racing writers:\n%s", writers, describe(h))
	}
	// Each change got its own version, newest highest, with no gap.
	for i, c := range h {
		if want := writers - i; c.Version != want || c.State == nil {
			t.Fatalf("change %d of %d racing writers: version %d (want %d), state %v", i, writers, c.Version, want, c.State)
		}
	}
}

// testHistoryRecordsWhatChanged: an update records the fields whose value
// it changed, not every field it was given, and an upsert that changes
// nothing leaves no trace (no version, last_modified as it was).
func testHistoryRecordsWhatChanged(t *testing.T, s rulesets.Store) {
	p := full("edited", "d", "m", "go", "style")
	mustUpsert(t, s, p, t0)
	yes := true
	edit := full("edited", "d", "m2", "go", "style")
	edit.Globs, edit.SetGlobs, edit.Always = []string{}, true, new(bool)
	mustUpsert(t, s, edit, t0.Add(time.Minute))
	scoped := full("edited", "d", "m2", "go", "style")
	scoped.Globs, scoped.SetGlobs, scoped.Always = []string{"src/**"}, true, &yes
	mustUpsert(t, s, scoped, t0.Add(2*time.Minute))
	for i := range 2 { // the same put again, and once more
		mustUpsert(t, s, scoped, t0.Add(time.Duration(3+i)*time.Minute))
	}
	want := strings.Join([]string{
		"10:32:00  updated globs,always",
		"10:31:00  updated markdown",
		"10:30:00  created description,markdown,tags",
	}, "\n")
	h := mustHistory(t, s, "edited", rulesets.MaxHistory)
	if got := describe(h); got != want {
		t.Fatalf("history:\n%s\nwant:\n%s", got, want)
	}
	if h[0].Version != 3 {
		t.Fatalf("newest version = %d, want 3", h[0].Version)
	}
	if got := mustGet(t, s, "edited"); !got.LastModified.Equal(t0.Add(2 * time.Minute)) {
		t.Fatalf("last_modified = %v after puts that changed nothing, want %v", got.LastModified, t0.Add(2*time.Minute))
	}
}
