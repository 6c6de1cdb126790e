package trackertest

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
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

// KindOf is the kind of record T.
func KindOf[T Record]() tracker.RecordKind {
	var zero T
	switch any(zero).(type) {
	case tracker.SpecRecord:
		return tracker.SpecRecords
	case tracker.Feedback:
		return tracker.FeedbackRecords
	}
	return tracker.IssueRecords
}

// ReadRecords reads every shard file of T's kind in the tracker directory
// dir (a .sudocode) as ReadJSONL does, checks that each record is in its
// id's shard, and returns them all sorted by id.
func ReadRecords[T Record](t testing.TB, dir string) []T {
	t.Helper()
	k := KindOf[T]()
	var out []T
	for _, f := range ShardFiles(k) {
		p := filepath.Join(dir, filepath.FromSlash(f))
		if _, err := os.Stat(p); err != nil {
			continue
		}
		recs := ReadJSONL[T](t, p)
		for _, id := range IDs(recs) {
			if want := tracker.ShardFile(k, id); want != f {
				t.Errorf("%s holds %s, whose shard is %s", f, id, want)
			}
		}
		out = append(out, recs...)
	}
	ids := IDs(out)
	order := make([]int, len(out))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(ids[a], ids[b]) })
	sorted := make([]T, len(out))
	for i, j := range order {
		sorted[i] = out[j]
	}
	return sorted
}

// RecordFile is the path of the shard file holding record id of T's kind
// in the tracker directory dir.
func RecordFile[T Record](dir, id string) string {
	return filepath.Join(dir, filepath.FromSlash(tracker.ShardFile(KindOf[T](), id)))
}

// KindFiles is the part of a Snapshot holding the records of T's kind,
// joined in path order: what a test compares to see whether a command
// rewrote any of them.
func KindFiles[T Record](snapshot map[string]string) string {
	prefix := tracker.RecordsDir + "/" + KindOf[T]().Dir() + "/"
	var b strings.Builder
	for _, p := range slices.Sorted(maps.Keys(snapshot)) {
		if strings.HasPrefix(filepath.ToSlash(p), prefix) {
			b.WriteString(p + "\n" + snapshot[p])
		}
	}
	return b.String()
}

// ShardFiles lists every possible shard file of kind k (relative, with
// slashes), in order.
func ShardFiles(k tracker.RecordKind) []string {
	out := make([]string, tracker.Shards)
	for i := range out {
		out[i] = path.Join(tracker.RecordsDir, k.Dir(), fmt.Sprintf("%02x.jsonl", i))
	}
	return out
}
