// Package goldentest pins a value to a committed file: a change of the
// value is a visible diff, refreshed by running the tests with -update.
package goldentest

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// JSON compares v, as indented JSON, with the file at path; with -update
// it writes the file first.
func JSON(t testing.TB, path string, v any) {
	t.Helper()
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	Bytes(t, path, append(got, '\n'))
}

// Bytes compares got with the file at path byte for byte; with -update it
// writes the file first.
func Bytes(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the test with -update to create it)", err)
	}
	if string(got) != string(want) {
		t.Fatalf("the value drifted from %s; if that is intended, rerun with -update and commit the diff.\ngot:\n%s", path, got)
	}
}
