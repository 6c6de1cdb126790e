package testkit

import (
	"os"
	"path/filepath"
	"testing"
)

func TestOnCI(t *testing.T) {
	for v, want := range map[string]bool{"": false, "true": true, "1": true, "false": false, "0": false, "github-actions": true} {
		t.Setenv("CI", v)
		if got := OnCI(); got != want {
			t.Errorf("CI=%q: OnCI %v, want %v", v, got, want)
		}
	}
	os.Unsetenv("CI")
	if OnCI() {
		t.Error("CI unset: OnCI true")
	}
}

// Outside CI a missing prerequisite skips, and the test says why.
func TestMissingSkipsOutsideCI(t *testing.T) {
	t.Setenv("CI", "false")
	var inner *testing.T
	t.Run("needs", func(t *testing.T) {
		inner = t
		Command(t, "no-such-program-7f3a", "apt-get install -y no-such-program")
		t.Error("Command returned for a program that does not exist")
	})
	if !inner.Skipped() {
		t.Fatal("the test was not skipped")
	}
}

// A program on PATH that does not run is missing too, and the skip says
// which program and what it answered.
func TestRunnableNamesAProgramThatDoesNotRun(t *testing.T) {
	t.Setenv("CI", "false")
	dir := t.TempDir()
	shim := filepath.Join(dir, "python3")
	if err := os.WriteFile(shim, []byte("#!/bin/sh\necho 'pyenv: Permission denied' >&2\nexit 126\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	var inner *testing.T
	t.Run("needs", func(t *testing.T) {
		inner = t
		Runnable(t, "python3", "apt-get install -y python3", "--version")
		t.Error("Runnable returned for a program that does not run")
	})
	if !inner.Skipped() {
		t.Fatal("the test was not skipped")
	}
}

// A package is built once per process: asking again returns the same
// binary without building it again.
func TestBuildOnce(t *testing.T) {
	bin := Binary(t, "./cmd/coding-tools-mcp")
	st, err := os.Stat(bin)
	if err != nil || st.Mode()&0o111 == 0 {
		t.Fatalf("%s: %v %v", bin, st, err)
	}
	if err := os.Remove(bin); err != nil {
		t.Fatal(err)
	}
	if again := Binary(t, "./cmd/coding-tools-mcp"); again != bin {
		t.Fatalf("second build at %s, first at %s", again, bin)
	}
	if _, err := os.Stat(bin); !os.IsNotExist(err) {
		t.Fatalf("the package was built again: %v", err)
	}
}

func TestMain(m *testing.M) { os.Exit(Run(m)) }
