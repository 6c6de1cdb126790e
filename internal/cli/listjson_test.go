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
