package store_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

// TestBlockedRowsWithManyBlockers pins every field of blocked's rows on a
// graph where an issue waits for several things at once: its own blockers,
// those of a chain of ancestors, and those of a second parent, one blocker
// reached along two paths (listed once, through the nearest ancestor), a
// done blocker (left out) and a spec. The rows are the same read whole
// and a page at a time, from the blockers the changes that made the graph
// kept in the cache and from those a rebuild from the files derived; and
// show, which walks the graph item by item, says the same.
func TestBlockedRowsWithManyBlockers(t *testing.T) {
	g := buildGraph(t,
		[]string{"A closed", "R", "G", "P", "Q p1", "C", "X", "V", "U", "Y in_progress", "Z", "W", "D closed", "S spec", "B blocked p3"},
		[]string{
			// a chain under a closed root, and C's second parent Q
			"A parent-child R", "R parent-child G", "G parent-child P", "P parent-child C", "Q parent-child C",
			"A blocks U", "R blocks X", "R depends-on V", "Q blocks X", // X reached through R and through Q
			"P depends-on Y", "Q blocks S",
			"C blocks Z", "C depends-on W", "C blocks D",
		})
	e := g.e
	// group is the blockers named, through via ("" for an item's own), in
	// id order: the order within one item's or one ancestor's blockers.
	group := func(via string, names ...string) []tracker.Blocker {
		slices.SortFunc(names, func(a, b string) int { return strings.Compare(g.ids[a], g.ids[b]) })
		out := []tracker.Blocker{}
		for _, n := range names {
			b := tracker.Blocker{ID: g.ids[n], Title: n, Status: "open", Type: "task"}
			switch n {
			case "S":
				b.Status, b.Type = "draft", "feature"
			case "Y":
				b.Status = "in_progress"
			}
			if via != "" {
				b.Via = new(g.ids[via])
			}
			out = append(out, b)
		}
		return out
	}
	// in is the blockers of groups, in the order given.
	in := func(groups ...[]tracker.Blocker) []tracker.Blocker {
		out := []tracker.Blocker{}
		for _, g := range groups {
			out = append(out, g...)
		}
		return out
	}
	// C waits for its own Z and W, then its parents' (P and Q, in id
	// order), then P's parent G's (none), R's V (X is listed through Q
	// already) and A's U. D is closed: it holds nothing.
	cBlockers := in(group("", "Z", "W"), group("P", "Y"), group("Q", "X", "S"), group("R", "V"), group("A", "U"))
	if g.ids["Q"] < g.ids["P"] {
		cBlockers = in(group("", "Z", "W"), group("Q", "X", "S"), group("P", "Y"), group("R", "V"), group("A", "U"))
	}
	item := func(name, status string, prio int, bs []tracker.Blocker) tracker.BlockedItem {
		return tracker.BlockedItem{Compact: tracker.Compact{ID: g.ids[name], Title: name, Status: status, Priority: prio, Type: "task"},
			BlockedBy: bs}
	}
	// Priority first (Q is p1, B p3), then the oldest.
	want := []tracker.BlockedItem{
		item("Q", "open", 1, group("", "X", "S")),
		item("R", "open", 2, in(group("", "X", "V"), group("A", "U"))),
		item("G", "open", 2, in(group("R", "X", "V"), group("A", "U"))),
		item("P", "open", 2, in(group("", "Y"), group("R", "X", "V"), group("A", "U"))),
		item("C", "open", 2, cBlockers),
		item("B", "blocked", 3, []tracker.Blocker{}),
	}

	check := func(cache string) {
		t.Helper()
		whole, err := e.r.Blocked(e.ctx, store.BlockedOptions{Issues: true, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(*whole.Issues, want) {
			t.Errorf("blocked rows of the %s cache:\n got  %+v\n want %+v", cache, *whole.Issues, want)
		}
		var paged []tracker.BlockedItem
		o := store.BlockedOptions{Issues: true, Limit: 1}
		for {
			res, err := e.r.Blocked(e.ctx, o)
			if err != nil {
				t.Fatal(err)
			}
			paged = append(paged, *res.Issues...)
			if res.NextCursor == nil {
				break
			}
			o.Cursor = *res.NextCursor
		}
		if !reflect.DeepEqual(paged, want) {
			t.Errorf("blocked rows of the %s cache read one at a time:\n got  %+v\n want %+v", cache, paged, want)
		}
	}
	check("changed")
	e.r.Close()
	e.r = nil
	removeCache(t, e.dir)
	e.next()
	check("rebuilt")
	// show's blocked_by is the same list, read item by item.
	for _, it := range want {
		d, err := e.r.ShowIssue(e.ctx, it.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(d.BlockedBy, it.BlockedBy) {
			t.Errorf("show %s: blocked_by %+v, want %+v", it.Title, d.BlockedBy, it.BlockedBy)
		}
	}
}
