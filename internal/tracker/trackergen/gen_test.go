package trackergen

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/sudocode/sudocode/internal/tracker"
)

// TestGenerateLargeIsValidAndRepeatable: the 100,000-issue dataset the
// scale targets are measured on is a valid tracker (no two records share
// an id, which random 6-character ids do at that size) and the same bytes
// on every run, so figures from different runs compare.
func TestGenerateLargeIsValidAndRepeatable(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	for _, dir := range []string{a, b} {
		if err := Generate(dir, Large); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"issues.jsonl", "specs.jsonl"} {
		x, err := os.ReadFile(filepath.Join(a, ".sudocode", f))
		if err != nil {
			t.Fatal(err)
		}
		y, _ := os.ReadFile(filepath.Join(b, ".sudocode", f))
		if !bytes.Equal(x, y) {
			t.Errorf("%s differs between two runs of the same size", f)
		}
	}
	data, _ := os.ReadFile(filepath.Join(a, ".sudocode", "issues.jsonl"))
	issues, err := tracker.ParseIssues(data, nil)
	if err != nil {
		t.Fatalf("generated issues.jsonl does not decode: %v", err)
	}
	if len(issues) != Large.Issues {
		t.Fatalf("%d issues, want %d", len(issues), Large.Issues)
	}
}
