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
// and parallel tests: the readable output is what plain go test shows.
func TestRecord(t *testing.T) {
	mod := t.TempDir()
	write(t, filepath.Join(mod, "go.mod"), "module example.com/m\n\ngo 1.22\n")
	write(t, filepath.Join(mod, "m_test.go"), `package m

import "testing"

func TestGood(t *testing.T) { t.Log("said by the good one") }

func TestBad(t *testing.T) {
	t.Run("inner", func(t *testing.T) { t.Error("said by the bad one") })
}

func TestSkipped(t *testing.T) { t.Skip("not here") }

func TestSlow(t *testing.T) {
	t.Run("parallel", func(t *testing.T) {
		t.Parallel()
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
}

// recorded is `go test -json` of the module TestRecord runs, its tests'
// times set: the parallel subtest took 2.4 s, and go test reports its
// parent at 0 s.
const recorded = `{"Action":"start","Package":"example.com/m"}
{"Action":"run","Package":"example.com/m","Test":"TestGood"}
{"Action":"output","Package":"example.com/m","Test":"TestGood","Output":"=== RUN   TestGood\n"}
{"Action":"output","Package":"example.com/m","Test":"TestGood","Output":"    m_test.go:5: said by the good one\n"}
{"Action":"output","Package":"example.com/m","Test":"TestGood","Output":"--- PASS: TestGood (0.30s)\n"}
{"Action":"pass","Package":"example.com/m","Test":"TestGood","Elapsed":0.3}
{"Action":"run","Package":"example.com/m","Test":"TestBad"}
{"Action":"run","Package":"example.com/m","Test":"TestBad/inner"}
{"Action":"output","Package":"example.com/m","Test":"TestBad/inner","Output":"    m_test.go:8: said by the bad one\n"}
{"Action":"output","Package":"example.com/m","Test":"TestBad/inner","Output":"--- FAIL: TestBad/inner (0.70s)\n"}
{"Action":"fail","Package":"example.com/m","Test":"TestBad/inner","Elapsed":0.7}
{"Action":"output","Package":"example.com/m","Test":"TestBad","Output":"--- FAIL: TestBad (0.80s)\n"}
{"Action":"fail","Package":"example.com/m","Test":"TestBad","Elapsed":0.8}
{"Action":"run","Package":"example.com/m","Test":"TestSkipped"}
{"Action":"output","Package":"example.com/m","Test":"TestSkipped","Output":"--- SKIP: TestSkipped (0.00s)\n"}
{"Action":"skip","Package":"example.com/m","Test":"TestSkipped","Elapsed":0}
{"Action":"run","Package":"example.com/m","Test":"TestSlow"}
{"Action":"run","Package":"example.com/m","Test":"TestSlow/parallel"}
{"Action":"pause","Package":"example.com/m","Test":"TestSlow/parallel"}
{"Action":"cont","Package":"example.com/m","Test":"TestSlow/parallel"}
{"Action":"output","Package":"example.com/m","Test":"TestSlow/parallel","Output":"--- PASS: TestSlow/parallel (2.40s)\n"}
{"Action":"pass","Package":"example.com/m","Test":"TestSlow/parallel","Elapsed":2.4}
{"Action":"output","Package":"example.com/m","Test":"TestSlow","Output":"--- PASS: TestSlow (0.00s)\n"}
{"Action":"pass","Package":"example.com/m","Test":"TestSlow","Elapsed":0}
{"Action":"output","Package":"example.com/m","Output":"FAIL\n"}
{"Action":"output","Package":"example.com/m","Output":"FAIL\texample.com/m\t3.205s\n"}
{"Action":"fail","Package":"example.com/m","Elapsed":3.205}
`

// The times record keeps are listed by slowest, slowest first, a
// parallel subtest as itself, a failed test marked, a skipped one not
// listed.
func TestSlowest(t *testing.T) {
	times := filepath.Join(t.TempDir(), "times.jsonl")
	if err := run([]string{"record", times}, strings.NewReader(recorded), &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run([]string{"slowest", "3", times}, nil, &out); err != nil {
		t.Fatal(err)
	}
	want := `the 3 slowest tests:
    2.4s  example.com/m  TestSlow/parallel
    0.8s  example.com/m  TestBad        FAILED
    0.7s  example.com/m  TestBad/inner  FAILED
`
	if out.String() != want {
		t.Errorf("slowest 3:\n%s\nwant\n%s", out.String(), want)
	}
	out.Reset()
	if err := run([]string{"slowest", "10", times}, nil, &out); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); !strings.HasPrefix(got, "the 5 slowest tests:\n") || strings.Contains(got, "TestSkipped") {
		t.Errorf("slowest 10 of 5 finished tests:\n%s\nwant all 5 and no skipped test", got)
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
