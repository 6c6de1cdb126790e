package store_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

// TestWholeListInPagedOrder checks a list asked for whole (a limit of at
// least what is left, read in table order and sorted in Go) is in the
// order of the pages walked one by one (ORDER BY priority, created_ns, id
// in SQLite), including issues created at the same instant, which only
// their ids order, and the rest of a list after a cursor.
func TestWholeListInPagedOrder(t *testing.T) {
	e := newEnv(t)
	for i := range 30 {
		if i%4 == 0 {
			e.clk.Set(t0) // several issues share a creation time
		}
		p, typ := (i*7)%3, []string{"bug", "task"}[i%2]
		e.issue(fmt.Sprint("issue ", i), store.IssueInput{Priority: &p, Type: typ})
	}
	e.next()
	ids := func(l tracker.IssueList) []string {
		out := []string{}
		for _, c := range l.Issues {
			out = append(out, c.ID)
		}
		return out
	}
	for _, f := range []store.IssueFilter{{}, {Type: "bug"}, {Priority: new(1)}} {
		var walked []string
		cursors := []string{""}
		for c := ""; ; {
			f.Limit, f.Cursor = 4, c
			page, err := e.r.ListIssues(e.ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			walked = append(walked, ids(page)...)
			if page.NextCursor == nil {
				break
			}
			c = *page.NextCursor
			cursors = append(cursors, c)
		}
		for n, c := range cursors {
			f.Limit, f.Cursor = 1000, c
			rest, err := e.r.ListIssues(e.ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(rest); !slices.Equal(got, walked[4*n:]) {
				t.Errorf("%+v after page %d: %v\nwant the pages' order %v", f, n, got, walked[4*n:])
			}
			if rest.Truncated || rest.NextCursor != nil || rest.Total != len(walked) || rest.Page.Skipped != 4*n {
				t.Errorf("%+v after page %d: total %d, skipped %d, truncated %v, next %v; want %d, %d and the end",
					f, n, rest.Total, rest.Page.Skipped, rest.Truncated, rest.NextCursor, len(walked), 4*n)
			}
			if n == 0 && rest.Page.Items > 0 {
				if last := rest.Page.After(rest.Page.Items); last == "" {
					t.Errorf("%+v: no cursor after the last item", f)
				}
			}
		}
		// A limit one short of the whole list reads it in SQLite's order.
		f.Limit, f.Cursor = len(walked)-1, ""
		short, err := e.r.ListIssues(e.ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		if got := ids(short); !short.Truncated || !slices.Equal(got, walked[:len(walked)-1]) {
			t.Errorf("%+v: %v (truncated %v), want %v", f, got, short.Truncated, walked[:len(walked)-1])
		}
	}
}
