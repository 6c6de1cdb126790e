package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/tracker"
)

// encodingJSON is what writeJSON wrote of every value before lists had
// their own writer: encoding/json's indented encoder.
func encodingJSON(t testing.TB, v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestCompactListIsEncodingJSON checks the lists' writer against
// encoding/json on lists of every shape: nil, empty, cut with a hint and a
// cursor, and more items than one piece of output holds.
func TestCompactListIsEncodingJSON(t *testing.T) {
	hint, next := "showing 2 of 9; narrow with <filters> & \"more\"", "eyJ2IjoxfQ"
	item := func(i int) tracker.Compact {
		return tracker.Compact{ID: "sudocode-" + strings.Repeat("x", i%7), Title: "Issue \u2028 <b>" + strings.Repeat("ü", i%5),
			Status: "open", Priority: i % 5, Type: "bug", Description: tracker.Shorten(strings.Repeat("Some words \t\"q\" ", i%20))}
	}
	var many []tracker.Compact
	for i := range 3000 {
		many = append(many, item(i))
	}
	for _, v := range []any{
		tracker.IssueList{},
		tracker.IssueList{Issues: []tracker.Compact{}},
		tracker.IssueList{Issues: many[:2], Total: 9, Truncated: true, Hint: &hint, NextCursor: &next, HiddenClosed: 4},
		tracker.IssueList{Issues: many, Total: len(many)},
		tracker.SpecList{Specs: many[5:9], Total: 4},
		tracker.SpecList{},
	} {
		l, ok := listOf(v)
		if !ok {
			t.Fatalf("%T is not a list", v)
		}
		var got bytes.Buffer
		if err := l.write(&got); err != nil {
			t.Fatal(err)
		}
		if want := encodingJSON(t, v); got.String() != want {
			t.Errorf("%T with %d items:\n%s\nwant\n%s", v, len(l.items), got.String(), want)
		}
	}
}

// FuzzJSONString checks strings are quoted as encoding/json quotes them
// (without HTML escaping), whatever their bytes.
func FuzzJSONString(f *testing.F) {
	for _, s := range []string{"", "plain", `"\`, "\x00\x01\b\f\n\r\t\x1f\x7f", "<>&", "\u2028\u2029", "é✓🚀", "\xff", "a\xe2\x80", "\xed\xa0\x80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := strings.TrimSuffix(encodingJSON(t, s), "\n")
		if got := string(appendJSONString(nil, s)); got != want {
			t.Errorf("%q quoted as %s, want %s", s, got, want)
		}
	})
}

// TestBlockedIsEncodingJSON checks the blocked list's writer against
// encoding/json: issues only, specs only, both, empty and absent lists,
// rows with no blocker, a nil list of them, blockers direct and inherited,
// and more rows than one piece of output holds.
func TestBlockedIsEncodingJSON(t *testing.T) {
	next := "eyJ2IjoxfQ"
	item := func(i int) tracker.BlockedItem {
		it := tracker.BlockedItem{Compact: tracker.Compact{ID: "sudocode-" + strings.Repeat("x", i%7), Title: "Issue \u2028 <b>" + strings.Repeat("ü", i%5),
			Status: "open", Priority: i % 5, Type: "bug", Description: tracker.Shorten(strings.Repeat("Some words \t\"q\" ", i%20))}}
		switch i % 4 {
		case 0:
			it.BlockedBy = []tracker.Blocker{}
		case 1:
			it.BlockedBy = nil
		default:
			for j := range i%3 + 1 {
				by := tracker.Blocker{ID: "sudocode-b" + strings.Repeat("y", j), Title: "Blocker \"" + strings.Repeat("&", j), Status: "in_progress", Type: "task"}
				if j%2 == 1 {
					by.Via = new("sudocode-parent")
				}
				it.BlockedBy = append(it.BlockedBy, by)
			}
		}
		return it
	}
	var many []tracker.BlockedItem
	for i := range 3000 {
		many = append(many, item(i))
	}
	empty := []tracker.BlockedItem{}
	few := many[:6]
	for _, res := range []tracker.BlockedResult{
		{},
		{Issues: &empty},
		{Issues: &few, NextCursor: &next},
		{Specs: &few},
		{Issues: &many, Specs: &empty},
	} {
		var got bytes.Buffer
		if err := writeJSON(&got, res); err != nil {
			t.Fatal(err)
		}
		if want := encodingJSON(t, res); got.String() != want {
			t.Errorf("blocked result:\n%s\nwant\n%s", got.String(), want)
		}
	}
}
