package patch

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/sudocode/sudocode/internal/workspace"
)

func TestModePreserved(t *testing.T) {
	w := newWS(t)
	w.write("run.sh", "#!/bin/sh\necho a\n")
	w.write("ro.txt", "x\n")
	w.write("mv.sh", "m\n")
	os.Chmod(w.abs("run.sh"), 0o751)
	os.Chmod(w.abs("ro.txt"), 0o440)
	os.Chmod(w.abs("mv.sh"), 0o700)
	p := NewPatcher()
	_, err := p.Apply(w.root, env(
		"*** Update File: run.sh", "-echo a", "+echo b",
		"*** Update File: ro.txt", "-x", "+y",
		"*** Update File: mv.sh", "*** Move to: bin/mv.sh", "-m", "+n",
		"*** Add File: new.txt", "+n"), false)
	if err != nil {
		t.Fatal(err)
	}
	for rel, want := range map[string]fs.FileMode{"run.sh": 0o751, "ro.txt": 0o440, "bin/mv.sh": 0o700} {
		fi, err := os.Stat(w.abs(rel))
		if err != nil || fi.Mode().Perm() != want {
			t.Fatalf("%s: mode %v, want %v (%v)", rel, fi.Mode().Perm(), want, err)
		}
	}
	if w.read("run.sh") != "#!/bin/sh\necho b\n" || w.read("ro.txt") != "y\n" || w.read("bin/mv.sh") != "n\n" {
		t.Fatal("contents")
	}
	fi, _ := os.Stat(w.abs("new.txt"))
	if fi.Mode().Perm()&0o600 != 0o600 {
		t.Fatalf("new file mode %v", fi.Mode())
	}
}

func TestDryRunCreatesNothing(t *testing.T) {
	w := newWS(t)
	w.write("u", "a\n")
	w.write("d", "x\n")
	w.write("m", "m\n")
	before := snapshot(t, w.dir)
	p := NewPatcher()
	res, err := p.Apply(w.root, env(
		"*** Add File: deep/er/new.txt", "+n",
		"*** Update File: u", "-a", "+b",
		"*** Delete File: d",
		"*** Update File: m", "*** Move to: other/dir/m"), true)
	if err != nil {
		t.Fatal(err)
	}
	sameSnapshot(t, before, snapshot(t, w.dir))
	if w.exists("deep") || w.exists("other") {
		t.Fatal("dry run created parent directories")
	}
	if !res.DryRun || res.Summary != "A deep/er/new.txt\nM u\nD d\nR m -> other/dir/m" {
		t.Fatalf("result %v", res)
	}
	if len(p.Originals()) != 0 {
		t.Fatal("dry run recorded originals")
	}
}

// failAt makes the hook fail the nth (1-based) call of op, counting all paths.
func failAt(op string, n int) func(string, string) error {
	count := 0
	return func(o, rel string) error {
		if o == op {
			count++
			if count == n {
				return fmt.Errorf("injected %s failure", op)
			}
		}
		return nil
	}
}

func TestCommitFailureRollsBack(t *testing.T) {
	patch := env(
		"*** Update File: one", "-1", "+uno",
		"*** Add File: new/dir/two", "+2",
		"*** Update File: three", "*** Move to: moved/three", "-3", "+tres",
		"*** Delete File: four",
		"*** Add File: five", "+5")
	cases := []struct {
		name   string
		hook   func(string, string) error
		failed string
	}{
		{"first write", failAt("write", 1), "one"},
		{"mkdir", failAt("mkdir", 2), "new/dir"},
		{"third write", failAt("write", 3), "moved/three"},
		{"last rename", failAt("rename", 4), "five"},
		{"removing a move source", failAt("remove", 1), "three"},
		{"removing a deleted file", failAt("remove", 2), "four"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := newWS(t)
			w.write("one", "1\n")
			w.write("three", "3\n")
			w.write("four", "4\n")
			os.Chmod(w.abs("three"), 0o640)
			before := snapshot(t, w.dir)
			p := NewPatcher()
			p.hook = tc.hook
			_, err := p.Apply(w.root, patch, false)
			we := asErr(t, err, "PATCH_FAILED")
			if workspace.Classify(we).Category != "runtime" || we.Details["path"] != tc.failed {
				t.Fatalf("category %s details %v", workspace.Classify(we).Category, we.Details)
			}
			contains(t, we.Msg, "rolled back")
			contains(t, we.Msg, tc.failed)
			sameSnapshot(t, before, snapshot(t, w.dir))
			if len(p.Originals()) != 0 {
				t.Fatal("a failed commit recorded originals")
			}
			// The same patcher works again once the failure is gone.
			p.hook = nil
			if _, err := p.Apply(w.root, patch, false); err != nil {
				t.Fatal(err)
			}
			if w.read("moved/three") != "tres\n" || w.exists("four") || w.read("new/dir/two") != "2\n" {
				t.Fatal("retry")
			}
		})
	}
}

// A genuine filesystem failure (not an injected error): a directory the
// patch must create turns into a file between validation and commit.
func TestCommitRealFailureRollsBack(t *testing.T) {
	w := newWS(t)
	w.write("a", "a\n")
	before := snapshot(t, w.dir)
	p := NewPatcher()
	p.hook = func(op, rel string) error {
		if op == "write" && rel == "a" {
			return os.WriteFile(w.abs("sub"), []byte("in the way"), 0o644)
		}
		return nil
	}
	_, err := p.Apply(w.root, env("*** Update File: a", "-a", "+b", "*** Add File: sub/c", "+c"), false)
	we := asErr(t, err, "PATCH_FAILED")
	if workspace.Classify(we).Category != "runtime" || we.Details["path"] != "sub/c" {
		t.Fatalf("%v %v", workspace.Classify(we).Category, we.Details)
	}
	os.Remove(w.abs("sub"))
	sameSnapshot(t, before, snapshot(t, w.dir))
}

func TestRollbackFailureIsInternal(t *testing.T) {
	w := newWS(t)
	w.write("one", "1\n")
	p := NewPatcher()
	failed := failAt("write", 2)
	p.hook = func(op, rel string) error {
		if op == "restore" {
			return errors.New("disk gone")
		}
		return failed(op, rel)
	}
	_, err := p.Apply(w.root, env("*** Update File: one", "-1", "+uno", "*** Add File: two", "+2"), false)
	we := asErr(t, err, "INTERNAL_ERROR")
	if workspace.Classify(we).Category != "internal" {
		t.Fatal(workspace.Classify(we).Category)
	}
	lost, _ := we.Details["not_restored"].([]string)
	if len(lost) != 1 || lost[0] != "one" || we.Details["path"] != "two" {
		t.Fatalf("details %v", we.Details)
	}
	contains(t, we.Msg, "could not restore one")
}

func TestOriginals(t *testing.T) {
	w := newWS(t)
	w.write("a", "first\n")
	w.write("d", "del\n")
	w.write("m", "mov\n")
	p := NewPatcher()
	if _, err := p.Apply(w.root, env("*** Update File: a", "-first", "+second", "*** Add File: n", "+new",
		"*** Delete File: d", "*** Update File: m", "*** Move to: m2"), false); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Apply(w.root, env("*** Update File: a", "-second", "+third", "*** Update File: n", "-new", "+newer"), false); err != nil {
		t.Fatal(err)
	}
	o := p.Originals()
	want := map[string]*string{"a": new("first\n"), "n": nil, "d": new("del\n"), "m": new("mov\n"), "m2": nil}
	if len(o) != len(want) {
		t.Fatalf("originals %v", keys(o))
	}
	for k, v := range want {
		got, ok := o[k]
		if !ok || (v == nil) != (got == nil) || (v != nil && *v != *got) {
			t.Fatalf("originals[%s] = %v, want %v", k, deref(got), deref(v))
		}
	}
	o["a"] = nil // a copy
	if p.Originals()["a"] == nil {
		t.Fatal("Originals must return a copy")
	}
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

func keys(m map[string]*string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestMoveOntoHardLinkOfItself(t *testing.T) {
	w := newWS(t)
	w.write("a", "x\n")
	if err := os.Link(w.abs("a"), w.abs("b")); err != nil {
		t.Fatal("hard links are needed for this test:", err)
	}
	res, err := NewPatcher().Apply(w.root, env("*** Update File: a", "*** Move to: b", "-x", "+y"), false)
	if err != nil {
		t.Fatal(err)
	}
	if w.exists("a") || w.read("b") != "y\n" || res.Summary != "R a -> b" {
		t.Fatalf("%v", res)
	}
}

func TestConcurrentAppliesAreSerialised(t *testing.T) {
	w := newWS(t)
	w.write("log", "")
	p := NewPatcher()
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := p.Apply(w.root, env(fmt.Sprintf("*** Add File: f%d", i), "+x",
				"*** Update File: log", "@@", fmt.Sprintf("+line %d", i)), false)
			errs <- err
		}()
		go p.Originals()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := strings.Count(w.read("log"), "\n"); n != 20 {
		t.Fatalf("log has %d lines:\n%s", n, w.read("log"))
	}
}

func TestNilRoot(t *testing.T) {
	_, err := NewPatcher().Apply(nil, env("*** Add File: a", "+x"), false)
	asErr(t, err, "INTERNAL_ERROR")
}
