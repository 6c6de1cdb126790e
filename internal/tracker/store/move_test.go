package store

import "testing"

// TestWithLeaving: the first write of a move keeps, beside a file's new
// lines, the lines leaving it, in id order; a file losing nothing is
// written as it is to be.
func TestWithLeaving(t *testing.T) {
	cur := []byte(`{"id":"a","v":1}` + "\n" + `{"id":"c","v":1}` + "\n" + `{"v":1,"id":"e"}` + "\n")
	data := []byte(`{"id":"b","v":2}` + "\n" + `{"id":"c","v":2}` + "\n")
	want := `{"id":"a","v":1}` + "\n" + `{"id":"b","v":2}` + "\n" + `{"id":"c","v":2}` + "\n" + `{"v":1,"id":"e"}` + "\n"
	if got := string(withLeaving(cur, data)); got != want {
		t.Errorf("withLeaving:\n%s\nwant:\n%s", got, want)
	}
	if got := string(withLeaving([]byte(`{"id":"c","v":1}`), data)); got != string(data) {
		t.Errorf("withLeaving of a file losing nothing: %q, want %q", got, data)
	}
}
