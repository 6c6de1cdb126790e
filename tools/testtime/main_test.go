package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A real `go test -json` run of a module with passing, failing, skipped
// and parallel tests: the readable output is what plain go test shows,
// the times are kept, and slowest lists them slowest first, a parallel
// subtest as itself.
func TestRecordAndSlowest(t *testing.T) {
	mod := t.TempDir()
	write(t, filepath.Join(mod, "go.mod"), "module example.com/m\n\ngo 1.22\n")
	write(t, filepath.Join(mod, "m_test.go"), `package m

import (
	"testing"
	"time"
)

func TestGood(t *testing.T) { t.Log("said by the good one") }

func TestBad(t *testing.T) {
	t.Run("inner", func(t *testing.T) { t.Error("said by the bad one") })
}

func TestSkipped(t *testing.T) { t.Skip("not here") }

func TestSlow(t *testing.T) {
	t.Run("parallel", func(t *testing.T) {
		t.Parallel()
		time.Sleep(1100 * time.Millisecond)
	})
}
`)
	cmd := exec.Command("go", "test", "-json", "-count=1", ".")
	cmd.Dir = mod
	cmd.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off")
	js, err := cmd.Output()
	if err == nil {
		t.Fatalf("go test of a failing test passed:\n%s", js)
	}
	times := filepath.Join(t.TempDir(), "times.jsonl")
	var out bytes.Buffer
	if err := run([]string{"record", times}, bytes.NewReader(js), &out); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{"--- FAIL: TestBad/inner", "said by the bad one", "--- FAIL: TestBad", "FAIL\texample.com/m\t"} {
		if !strings.Contains(got, want) {
			t.Errorf("the output does not say %q:\n%s", want, got)
		}
	}
	for _, unwanted := range []string{"said by the good one", "=== RUN", "not here", "PASS\n", "{\""} {
		if strings.Contains(got, unwanted) {
			t.Errorf("the output says %q, which plain go test does not:\n%s", unwanted, got)
		}
	}

	out.Reset()
	if err := run([]string{"slowest", "2", times}, nil, &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 || lines[0] != "the 2 slowest tests:" || !strings.Contains(lines[1], "TestSlow/parallel") ||
		strings.Contains(out.String(), "TestSkipped") {
		t.Errorf("slowest 2:\n%s\nwant a title, TestSlow/parallel first, and no skipped test", out.String())
	}
}

func TestUsage(t *testing.T) {
	for _, args := range [][]string{nil, {"slowest", "0", "f"}, {"record"}, {"other", "x"}} {
		if err := run(args, nil, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "usage: testtime") {
			t.Errorf("testtime %q: %v, want the usage", args, err)
		}
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
