package store

import (
	"reflect"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/tracker"
)

// TestBlockersColumnRoundTrip: what the cache keeps of an item's blockers
// reads back as it was, whatever the titles hold (long ones, whose
// lengths take more than a byte, separators, newlines), and a column that
// is not what the cache writes is an error, not a wrong list.
func TestBlockersColumnRoundTrip(t *testing.T) {
	bs := []tracker.Blocker{
		{ID: "p-1", Title: strings.Repeat("é", 300), Status: "open", Type: "task"},
		{ID: "p-2", Title: "tab\tnul\x00\x1f\x1e\nline", Status: "in_progress", Type: "bug", Via: new("p-9")},
		{ID: "s-1", Title: "", Status: "draft", Type: "feature", Via: new("p-1")},
	}
	col, ok := encodeBlockers(bs).([]byte)
	if !ok {
		t.Fatalf("blockers encoded as %T", encodeBlockers(bs))
	}
	got, err := decodeBlockers(col)
	if err != nil || !reflect.DeepEqual(got, bs) {
		t.Fatalf("read back %+v, %v; want %+v", got, err, bs)
	}
	if encodeBlockers(nil) != nil {
		t.Error("no blockers are not NULL")
	}
	if got, err := decodeBlockers(nil); err != nil || got == nil || len(got) != 0 {
		t.Errorf("NULL read as %#v, %v; want an empty list", got, err)
	}
	for _, bad := range [][]byte{col[:len(col)-1], col[:3], {0xff, 0xff}, append(append([]byte{}, col...), 5, 'a')} {
		if got, err := decodeBlockers(bad); err == nil {
			t.Errorf("a damaged column %q read as %+v", bad, got)
		}
	}
}
