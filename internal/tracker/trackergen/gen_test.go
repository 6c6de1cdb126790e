package trackergen

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/trackertest"
)

// TestGenerateLargeIsValidAndRepeatable: the 100,000-issue dataset the
// scale targets are measured on is a valid tracker in the shard layout
// (every shard canonical and holding only its own ids; no two records
// share an id, which random 6-character ids do at that size) and the
// same bytes on every run, so figures from different runs compare. The
// generator draws everything from one seeded source, so a second run is
// compared at the benchmark's size (a tenth), where it costs a tenth.
func TestGenerateLargeIsValidAndRepeatable(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	for _, dir := range []string{a, b} {
		if err := Generate(dir, Benchmark); err != nil {
			t.Fatal(err)
		}
	}
	trackertest.Same(t, "a second run of the same size",
		trackertest.Snapshot(t, filepath.Join(a, ".sudocode")), trackertest.Snapshot(t, filepath.Join(b, ".sudocode")))
	large := t.TempDir()
	if err := Generate(large, Large); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(large, ".sudocode")
	if n := len(trackertest.ReadRecords[tracker.IssueRecord](t, dir)); n != Large.Issues {
		t.Fatalf("%d issues, want %d", n, Large.Issues)
	}
	if n := len(trackertest.ReadRecords[tracker.SpecRecord](t, dir)); n != Large.Specs {
		t.Fatalf("%d specs, want %d", n, Large.Specs)
	}
	for _, k := range tracker.RecordKinds {
		if _, err := os.Stat(filepath.Join(dir, k.LegacyFile())); err == nil {
			t.Errorf("%s written beside the shard files", k.LegacyFile())
		}
	}
	if _, err := os.Stat(filepath.Join(dir, tracker.RecordsDir, tracker.FeedbackRecords.Dir())); err == nil {
		t.Errorf("feedback shards written, with no feedback to hold")
	}
}

// TestGenerateFirstLayoutHoldsTheSameTracker: the first layout of a size
// is the same tracker as its shard layout, record for record, with the
// same config and spec bodies, in one file per kind and no shard: what
// a tracker from before shards looks like, for the migration to start
// from.
func TestGenerateFirstLayoutHoldsTheSameTracker(t *testing.T) {
	shards, first := t.TempDir(), t.TempDir()
	if err := Generate(shards, Benchmark); err != nil {
		t.Fatal(err)
	}
	if err := GenerateFirstLayout(first, Benchmark); err != nil {
		t.Fatal(err)
	}
	sdir, fdir := filepath.Join(shards, ".sudocode"), filepath.Join(first, ".sudocode")
	issues := trackertest.ReadJSONL[tracker.IssueRecord](t, filepath.Join(fdir, tracker.IssueRecords.LegacyFile()))
	specs := trackertest.ReadJSONL[tracker.SpecRecord](t, filepath.Join(fdir, tracker.SpecRecords.LegacyFile()))
	if fb, err := os.ReadFile(filepath.Join(fdir, tracker.FeedbackRecords.LegacyFile())); err != nil || len(fb) != 0 {
		t.Errorf("feedback.jsonl: %q %v, want an empty file", fb, err)
	}
	same := func(what string, got, want []byte, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("the first layout's %s differ from the shard layout's at %s", what, trackertest.DiffLines(got, want))
		}
	}
	got, err := tracker.EncodeIssues(issues)
	want, err2 := tracker.EncodeIssues(trackertest.ReadRecords[tracker.IssueRecord](t, sdir))
	same("issues", got, want, errors.Join(err, err2))
	got, err = tracker.EncodeSpecs(specs)
	want, err2 = tracker.EncodeSpecs(trackertest.ReadRecords[tracker.SpecRecord](t, sdir))
	same("specs", got, want, errors.Join(err, err2))
	if len(issues) != Benchmark.Issues || len(specs) != Benchmark.Specs {
		t.Errorf("%d issues and %d specs, want %d and %d", len(issues), len(specs), Benchmark.Issues, Benchmark.Specs)
	}

	// Everything but the record files: the same files (config, spec bodies).
	rest := func(dir string) map[string]string {
		out := map[string]string{}
		for p, data := range trackertest.Snapshot(t, dir, tracker.RecordsDir) {
			if _, ok := tracker.KindOfFile(p); !ok {
				out[p] = data
			}
		}
		return out
	}
	trackertest.Same(t, "the first layout beside the shard layout", rest(sdir), rest(fdir))
}
