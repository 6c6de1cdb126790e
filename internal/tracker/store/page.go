package store

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/sudocode/sudocode/internal/cursor"
	"github.com/sudocode/sudocode/internal/tracker"
)

// The lists are paged by keyset: a cursor holds the sort key of the last
// item of its page, and the next page is the items whose key is greater.
// A key is unique (it ends with the id), so an item that exists for the
// whole walk and keeps its key (its priority, for the lists ordered by
// priority) is returned exactly once, whatever is created or deleted
// meanwhile; an item created during the walk is returned if its key falls
// after the position reached.

// prioKey is the position in a list ordered by priority, then age, then id.
type prioKey struct {
	P  int    `json:"p"`
	C  int64  `json:"c"`
	ID string `json:"id"`
}

// compare orders keys as the lists are: ORDER BY priority, created_ns, id
// (an id compares byte by byte, as SQLite's BINARY collation does).
func (k prioKey) compare(o prioKey) int {
	if c := cmp.Compare(k.P, o.P); c != 0 {
		return c
	}
	if c := cmp.Compare(k.C, o.C); c != 0 {
		return c
	}
	return strings.Compare(k.ID, o.ID)
}

// sortByKey sorts items in the order of their keys (keys[i] is the key
// of items[i]), returning both in that order.
func sortByKey(items []tracker.Compact, keys []prioKey) ([]tracker.Compact, []prioKey) {
	order := make([]int32, len(keys))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return keys[a].compare(keys[b]) })
	sortedItems, sortedKeys := make([]tracker.Compact, len(items)), make([]prioKey, len(keys))
	for i, j := range order {
		sortedItems[i], sortedKeys[i] = items[j], keys[j]
	}
	return sortedItems, sortedKeys
}

// timeKey is the position in a list ordered by age, then id.
type timeKey struct {
	C  int64  `json:"c"`
	ID string `json:"id"`
}

// twoKeys is the position in a result of two lists (ready and blocked:
// issues and specs), each paged on its own; Done marks a list finished.
type twoKeys struct {
	Issues     *prioKey `json:"i,omitempty"`
	Specs      *prioKey `json:"s,omitempty"`
	IssuesDone bool     `json:"id,omitempty"`
	SpecsDone  bool     `json:"sd,omitempty"`
}

func checkID(id string) error {
	if id == "" {
		return cursor.Invalid("malformed position")
	}
	return nil
}

// decodePrio reads a cursor of a priority-ordered list; nil without one.
func decodePrio(c string, scope cursor.Scope) (*prioKey, error) {
	if c == "" {
		return nil, nil
	}
	var k prioKey
	if err := cursor.Decode(c, scope, &k); err != nil {
		return nil, err
	}
	return &k, checkID(k.ID)
}

// afterPrio adds the condition of the items after k.
func afterPrio(w *where, k *prioKey) {
	if k != nil {
		w.add("(priority, created_ns, id) > (?, ?, ?)", k.P, k.C, k.ID)
	}
}

// upToPrio adds the condition of the items up to k (those before the page).
func upToPrio(w *where, k *prioKey) {
	w.add("(priority, created_ns, id) <= (?, ?, ?)", k.P, k.C, k.ID)
}

// pageOf is the Page of a page's keys in scope, and the next cursor when
// more follow the page.
func pageOf[K any](scope cursor.Scope, keys []K, skipped int, more bool) (tracker.Page, *string) {
	after := func(n int) string { return cursor.Encode(scope, keys[n-1]) }
	p := tracker.Page{Items: len(keys), After: after, Skipped: skipped}
	if !more || len(keys) == 0 {
		return p, nil
	}
	next := after(len(keys))
	return p, &next
}

// cutHint is the hint of a page that more items follow.
func cutHint(total, shown int, more bool, filters string) *string {
	if !more {
		return nil
	}
	h := fmt.Sprintf("showing %d of %d; narrow with %s, or raise --limit; next_cursor continues the list (--cursor)", shown, total, filters)
	return &h
}
