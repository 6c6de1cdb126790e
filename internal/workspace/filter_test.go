package workspace

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/testkit"
	"github.com/sudocode/sudocode/internal/workspace/wstest"
)

func TestComparePathKey(t *testing.T) {
	type ent struct {
		name string
		dir  bool
	}
	ents := []ent{{"a", true}, {"a-b", false}, {"a.txt", false}, {"ab", false}, {"a0", true}, {"B", false}, {"a", false}}
	slices.SortFunc(ents, func(x, y ent) int { return comparePathKey(x.name, x.dir, y.name, y.dir) })
	var got []string
	for _, e := range ents {
		k := e.name
		if e.dir {
			k += "/"
		}
		got = append(got, k)
	}
	want := slices.Clone(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("order %q, want byte order %q", got, want)
	}
}

func TestGlobNormalisation(t *testing.T) {
	cases := []struct {
		pattern string
		match   []string
		nomatch []string
	}{
		{"*.go", []string{"a.go", "x/y/a.go"}, []string{"a.go/x", "a.gox"}},
		{"**/*.js", []string{"a.js", "d/a.js"}, []string{"a.jsx"}},
		{"src/*.go", []string{"src/a.go", "x/src/a.go"}, []string{"src/x/a.go", "xsrc/a.go"}},
		{"/src/*.go", []string{"src/a.go"}, []string{"x/src/a.go"}},
		{"./src/*.go", []string{"src/a.go", "x/src/a.go"}, nil},
		{"build/", []string{"build", "build/x", "a/build/x/y"}, []string{"builder/x"}},
		{"a?c", []string{"abc", "d/abc"}, []string{"a/c", "abbc"}},
		{"[!a]*", []string{"b", "x/bc"}, []string{"a", "x/ab"}},
		{"**", []string{"a", "a/b"}, nil},
	}
	for _, c := range cases {
		set, err := CompileGlobs("patterns", []string{c.pattern})
		if err != nil || len(set) != 1 {
			t.Fatalf("%q: %v", c.pattern, err)
		}
		for _, p := range c.match {
			if !set.Match(p) {
				t.Errorf("%q does not match %q", c.pattern, p)
			}
		}
		for _, p := range c.nomatch {
			if set.Match(p) {
				t.Errorf("%q matches %q", c.pattern, p)
			}
		}
	}
	if set, _ := CompileGlobs("x", []string{"", "./", "/"}); len(set) != 0 || set.Match("a") {
		t.Errorf("empty patterns kept: %v", set)
	}
	_, err := CompileGlobs("include_globs", []string{"ok", "[bad"})
	if we := wstest.Code(t, err, "INVALID_ARGUMENT"); !strings.Contains(we.Msg, "include_globs") {
		t.Errorf("message %q does not name the argument", we.Msg)
	}
}

func TestGitIgnoreWithoutGit(t *testing.T) {
	r := twRoot(t, map[string]string{".gitignore": "*.log\n", "a.log": "needle\n", "b.txt": "needle\n"})
	testkit.Git(t, r.Path, "init", "-q")
	_, fs := twFiles(t, r, ListFilesOptions{})
	wstest.WantPaths(t, filePaths(fs), []string{"b.txt"})
	// No git binary: no git filtering, no error.
	wstest.Set(t, &ignoreGitBinary, filepath.Join(t.TempDir(), "no-git"))
	res, fs := twFiles(t, r, ListFilesOptions{})
	wstest.WantPaths(t, filePaths(fs), []string{"a.log", "b.txt"})
	wstest.Want(t, res, map[string]any{"warnings": []string{}})
}

func TestGitIgnoreNotAWorkTree(t *testing.T) {
	r := twRoot(t, map[string]string{".gitignore": "*.log\n", "a.log": "", "b.txt": ""})
	res, fs := twFiles(t, r, ListFilesOptions{})
	wstest.WantPaths(t, filePaths(fs), []string{"a.log", "b.txt"})
	wstest.Want(t, res, map[string]any{"warnings": []string{}})
}

func TestGitIgnoreTimeoutAndFailure(t *testing.T) {
	r := twRoot(t, map[string]string{"a.txt": "x\n"})
	testkit.Git(t, r.Path, "init", "-q") // found by its files: the fake gits below are asked only to list
	dir := t.TempDir()
	slow := filepath.Join(dir, "slow-git")
	// Asleep far beyond any deadline below: only the timeout ends it.
	if err := os.WriteFile(slow, []byte("#!/bin/sh\nexec sleep 300\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	broken := filepath.Join(dir, "broken-git")
	if err := os.WriteFile(broken, []byte("#!/bin/sh\necho 'fatal: index file corrupt' >&2\nexit 128\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	wstest.Set(t, &ignoreGitBinary, slow)
	wstest.Set(t, &ignoreGitTimeout, 200*time.Millisecond)
	start := time.Now()
	_, err := ListFiles(context.Background(), r, ListFilesOptions{})
	we := wstest.Code(t, err, "TIMEOUT")
	if c := Classify(we); !c.Retryable || c.Category != CatRuntime {
		t.Errorf("error %+v", we)
	}
	if d := time.Since(start); d > testkit.Scale(3*time.Second) {
		t.Errorf("the listing's 200 ms git timeout took %v, want it within %v (on a slow machine, set %s=4)", d, testkit.Scale(3*time.Second), testkit.SlowEnv)
	}
	_, err = ListDir(context.Background(), r, ListDirOptions{})
	wstest.Code(t, err, "TIMEOUT")
	// include_ignored needs no git for list_files.
	twFiles(t, r, ListFilesOptions{IncludeIgnored: true})

	// Another failure: no filtering, and a warning says so. The broken
	// git gets the usual time to start (in the sandbox, on a busy machine,
	// more than 200 ms).
	ignoreGitBinary = broken
	ignoreGitTimeout = testkit.Scale(10 * time.Second)
	res, fs := twFiles(t, r, ListFilesOptions{})
	wstest.WantPaths(t, filePaths(fs), []string{"a.txt"})
	if ws := res["warnings"].([]string); len(ws) != 1 || !strings.Contains(ws[0], "index file corrupt") {
		t.Errorf("warnings %v", ws)
	}
}

func TestGitIgnoreSubdirWorkspace(t *testing.T) {
	// The workspace is a subdirectory of the repository: the repository's
	// rules apply, with paths relative to the workspace.
	repo, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	wstest.Write(t, repo, map[string]string{".gitignore": "*.gen\nws/skip/\n", "ws/a.go": "", "ws/b.gen": "", "ws/skip/c.go": "", "ws/d/e.gen": ""})
	testkit.Git(t, repo, "init", "-q")
	r, err := Open(filepath.Join(repo, "ws"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.FS.Close()
	_, fs := twFiles(t, r, ListFilesOptions{})
	wstest.WantPaths(t, filePaths(fs), []string{"a.go"})
	_, fs = twFiles(t, r, ListFilesOptions{IncludeIgnored: true})
	wstest.WantPaths(t, filePaths(fs), []string{"a.go", "b.gen", "d/e.gen", "skip/c.go"})
}
