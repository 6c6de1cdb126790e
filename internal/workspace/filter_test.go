package workspace

import (
	"context"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
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
		set, err := compileGlobs("patterns", []string{c.pattern})
		if err != nil || len(set) != 1 {
			t.Fatalf("%q: %v", c.pattern, err)
		}
		for _, p := range c.match {
			if !set.match(p) {
				t.Errorf("%q does not match %q", c.pattern, p)
			}
		}
		for _, p := range c.nomatch {
			if set.match(p) {
				t.Errorf("%q matches %q", c.pattern, p)
			}
		}
	}
	if set, _ := compileGlobs("x", []string{"", "./", "/"}); len(set) != 0 || set.match("a") {
		t.Errorf("empty patterns kept: %v", set)
	}
	_, err := compileGlobs("include_globs", []string{"ok", "[bad"})
	if we := twCode(t, err, "INVALID_ARGUMENT"); !strings.Contains(we.Message, "include_globs") {
		t.Errorf("message %q does not name the argument", we.Message)
	}
}

func TestGitIgnoreWithoutGit(t *testing.T) {
	r := twRoot(t, map[string]string{".gitignore": "*.log\n", "a.log": "needle\n", "b.txt": "needle\n"})
	twGit(t, r.Path, "init", "-q")
	_, fs := twFiles(t, r, ListFilesOptions{})
	wantPaths(t, filePaths(fs), []string{"b.txt"})
	// No git binary: no git filtering, no error.
	twSet(t, &ignoreGitBinary, filepath.Join(t.TempDir(), "no-git"))
	res, fs := twFiles(t, r, ListFilesOptions{})
	wantPaths(t, filePaths(fs), []string{"a.log", "b.txt"})
	twWant(t, res, map[string]any{"warnings": []string{}})
}

func TestGitIgnoreNotAWorkTree(t *testing.T) {
	r := twRoot(t, map[string]string{".gitignore": "*.log\n", "a.log": "", "b.txt": ""})
	res, fs := twFiles(t, r, ListFilesOptions{})
	wantPaths(t, filePaths(fs), []string{"a.log", "b.txt"})
	twWant(t, res, map[string]any{"warnings": []string{}})
}

func TestGitIgnoreTimeoutAndFailure(t *testing.T) {
	r := twRoot(t, map[string]string{"a.txt": "x\n"})
	dir := t.TempDir()
	slow := filepath.Join(dir, "slow-git")
	if err := os.WriteFile(slow, []byte("#!/bin/sh\nexec sleep 10\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	broken := filepath.Join(dir, "broken-git")
	if err := os.WriteFile(broken, []byte("#!/bin/sh\necho 'fatal: index file corrupt' >&2\nexit 128\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	twSet(t, &ignoreGitBinary, slow)
	twSet(t, &ignoreGitTimeout, 200*time.Millisecond)
	start := time.Now()
	_, err := SearchText(context.Background(), r, SearchOptions{Query: "x"})
	if we := twCode(t, err, "TIMEOUT"); !we.Retryable || we.Category != CatRuntime {
		t.Errorf("error %+v", we)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("took %v", d)
	}
	_, err = ListDir(context.Background(), r, ListDirOptions{})
	twCode(t, err, "TIMEOUT")
	// include_ignored needs no git for list_files.
	twFiles(t, r, ListFilesOptions{IncludeIgnored: true})

	// Another failure: no filtering, and a warning says so.
	ignoreGitBinary = broken
	res, fs := twFiles(t, r, ListFilesOptions{})
	wantPaths(t, filePaths(fs), []string{"a.txt"})
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
	twWrite(t, repo, map[string]string{".gitignore": "*.gen\nws/skip/\n", "ws/a.go": "", "ws/b.gen": "", "ws/skip/c.go": "", "ws/d/e.gen": ""})
	twGit(t, repo, "init", "-q")
	r, err := Open(filepath.Join(repo, "ws"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.FS.Close()
	_, fs := twFiles(t, r, ListFilesOptions{})
	wantPaths(t, filePaths(fs), []string{"a.go"})
	_, fs = twFiles(t, r, ListFilesOptions{IncludeIgnored: true})
	wantPaths(t, filePaths(fs), []string{"a.go", "b.gen", "d/e.gen", "skip/c.go"})
}

// TestMatcherAgainstRegexp checks the prefilter and line matcher against
// Go's regexp applied line by line, on random text rich in case variants
// and multi-byte characters.
func TestMatcherAgainstRegexp(t *testing.T) {
	alphabet := []string{"a", "A", "b", "k", "K", "\u212A", "s", "S", "\u017F", "é", "É", "ß", " ", "\r", "x", "\t", "foo", "FOO", "Kelvin", "ſtraße"}
	rng := rand.New(rand.NewSource(1))
	var b strings.Builder
	for range 4000 {
		for range rng.Intn(12) {
			b.WriteString(alphabet[rng.Intn(len(alphabet))])
		}
		b.WriteByte('\n')
	}
	text := b.String()
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	queries := []struct {
		q            string
		regex, cases bool
	}{
		{"a", false, false}, {"ab", false, false}, {"ka", false, false}, {"K", false, true}, {"sS", false, false},
		{"é", false, false}, {"É a", false, false}, {"ß", false, false}, {"foo", false, false}, {"FOO", false, true},
		{"x\r", false, false}, {"kelvin", false, false}, {"straße", false, false}, {"\t", false, false},
		{"a+b", true, false}, {"k.s", true, false}, {"^foo", true, false}, {"foo$", true, true}, {`(ab|ba)+x`, true, false},
		{`é\w`, true, false}, {"[kx]{2}", true, false}, {"(?-i)K", true, false}, {`\s$`, true, false}, {"", true, false},
	}
	for _, q := range queries {
		m, err := newLineMatcher(q.q, q.regex, q.cases)
		if err != nil {
			t.Fatalf("%q: %v", q.q, err)
		}
		pat := q.q
		if !q.regex {
			pat = regexp.QuoteMeta(pat)
		}
		if !q.cases {
			pat = "(?i)" + pat
		}
		ref := regexp.MustCompile(pat)
		var want [][2]int
		for i, l := range lines {
			l = strings.TrimSuffix(l, "\r")
			if loc := ref.FindStringIndex(l); loc != nil {
				want = append(want, [2]int{i + 1, loc[0] + 1})
			}
		}
		fs := fileSearch{m: m, ctxLines: 0, previewMax: 4096, line: 1, detail: true, keep: 1 << 30}
		fs.process([]byte(text), true)
		var got [][2]int
		for _, x := range fs.matches {
			got = append(got, [2]int{x.Line, x.Column})
		}
		if !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Errorf("%q regex=%v case=%v: %d matches, want %d (first diff near %v / %v)", q.q, q.regex, q.cases, len(got), len(want), firstN(got, 3), firstN(want, 3))
		}
		if fs.count != len(want) {
			t.Errorf("%q: count %d, want %d", q.q, fs.count, len(want))
		}
	}
}

func firstN(ms [][2]int, n int) [][2]int { return ms[:min(n, len(ms))] }

func TestFoldSafe(t *testing.T) {
	for r, want := range map[rune]bool{'a': true, 'Z': true, '1': true, ' ': true, 'k': false, 'K': false, 's': false, 'S': false,
		'é': false, '→': true, 'ß': false, '\u212A': false} {
		if got := foldSafe(r); got != want {
			t.Errorf("foldSafe(%q) = %v", r, got)
		}
	}
	if got := longestFoldSafe("kelvins"); got != "elvin" {
		t.Errorf("longestFoldSafe = %q", got)
	}
}
