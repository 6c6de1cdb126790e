package trackertest

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/sudocode/sudocode/internal/tracker"
)

// Record is a kind of record a tracked file holds.
type Record interface {
	tracker.IssueRecord | tracker.SpecRecord | tracker.Feedback
}

// ReadJSONL reads a tracked JSONL file strictly (the codec's parse: one
// record a line, known keys only, ids unique) and checks it is canonical:
// the very bytes the codec writes for its records, so sorted by id, one
// line each, with a final newline.
func ReadJSONL[T Record](t testing.TB, path string) []T {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []T
	var canon []byte
	switch p := any(&out).(type) {
	case *[]tracker.IssueRecord:
		if *p, err = tracker.ParseIssues(data, nil); err == nil {
			canon, err = tracker.EncodeIssues(*p)
		}
	case *[]tracker.SpecRecord:
		if *p, err = tracker.ParseSpecs(data, nil); err == nil {
			canon, err = tracker.EncodeSpecs(*p)
		}
	case *[]tracker.Feedback:
		if *p, err = tracker.ParseFeedback(data, nil); err == nil {
			canon, err = tracker.EncodeFeedback(*p)
		}
	}
	if err != nil {
		t.Fatalf("%s: %v", filepath.Base(path), err)
	}
	if !bytes.Equal(data, canon) {
		t.Errorf("%s is not canonical at %s", filepath.Base(path), DiffLines(data, canon))
	}
	return out
}

// IDs are the ids of recs, in order.
func IDs[T Record](recs []T) []string {
	ids := make([]string, len(recs))
	for i, r := range recs {
		switch r := any(r).(type) {
		case tracker.IssueRecord:
			ids[i] = r.ID
		case tracker.SpecRecord:
			ids[i] = r.ID
		case tracker.Feedback:
			ids[i] = r.ID
		}
	}
	return ids
}
