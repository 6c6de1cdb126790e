package workspace

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/testkit"
	"github.com/sudocode/sudocode/internal/workspace/wstest"
)

func twFiles(t testing.TB, r *Root, o ListFilesOptions) (map[string]any, []ListedFile) {
	t.Helper()
	out, err := ListFiles(context.Background(), r, o)
	if err != nil {
		t.Fatalf("ListFiles(%+v): %v", o, err)
	}
	res := wstest.Fields(out)
	for _, k := range []string{"path", "files", "truncated", "warnings"} {
		if _, ok := res[k]; !ok {
			t.Fatalf("field %s missing in %v", k, res)
		}
	}
	return res, res["files"].([]ListedFile)
}

func filePaths(fs []ListedFile) []string {
	out := []string{}
	for _, f := range fs {
		out = append(out, f.Path)
	}
	return out
}

func TestListFilesDefaultAndFields(t *testing.T) {
	r := twRoot(t, map[string]string{"a-b": "12", "a/x": "", "a/y/z.go": "", "b.txt": "hello", "empty/": ""})
	mtime := time.Date(2023, 1, 2, 3, 4, 5, 0, time.UTC)
	os.Chtimes(r.Join("b.txt"), mtime, mtime)
	res, fs := twFiles(t, r, ListFilesOptions{})
	// Path order is plain byte order of the whole path ("a-b" < "a/x").
	wstest.WantPaths(t, filePaths(fs), []string{"a-b", "a/x", "a/y/z.go", "b.txt"})
	wstest.Want(t, res, map[string]any{"path": ".", "truncated": false, "warnings": []string{}})
	b := fs[3]
	if b.Type != "file" || b.SizeBytes != 5 || b.Modified != "2023-01-02T03:04:05Z" {
		t.Errorf("entry %+v", b)
	}
}

func TestListFilesGlobSemantics(t *testing.T) {
	r := twRoot(t, map[string]string{"a.js": "", "lib/b.js": "", "lib/deep/c.js": "", "src/main.go": "", "src/sub/x.go": "",
		"x/src/other.go": "", "README.md": "", "docs/guide.md": "", "Makefile": "", "q1.txt": "", "q22.txt": ""})
	cases := []struct {
		patterns []string
		glob     string
		want     []string
	}{
		{[]string{"**/*.js"}, "", []string{"a.js", "lib/b.js", "lib/deep/c.js"}},
		{[]string{"*.js"}, "", []string{"a.js", "lib/b.js", "lib/deep/c.js"}},
		{[]string{"src/*.go"}, "", []string{"src/main.go", "x/src/other.go"}},
		{[]string{"/src/*.go"}, "", []string{"src/main.go"}},
		{[]string{"./src/*.go"}, "", []string{"src/main.go", "x/src/other.go"}},
		{[]string{"src/**"}, "", []string{"src/main.go", "src/sub/x.go", "x/src/other.go"}},
		{[]string{"src/"}, "", []string{"src/main.go", "src/sub/x.go", "x/src/other.go"}},
		{[]string{"lib/*/*.js"}, "", []string{"lib/deep/c.js"}},
		{[]string{"q?.txt"}, "", []string{"q1.txt"}},
		{[]string{"q[0-9]*.txt"}, "", []string{"q1.txt", "q22.txt"}},
		{[]string{"*.{md,go}"}, "", []string{"README.md", "docs/guide.md", "src/main.go", "src/sub/x.go", "x/src/other.go"}},
		{[]string{"Makefile", "*.md"}, "", []string{"Makefile", "README.md", "docs/guide.md"}},
		{nil, "*.md", []string{"README.md", "docs/guide.md"}},
		{[]string{"*.txt"}, "*.md", []string{"q1.txt", "q22.txt"}}, // patterns win over glob
		{[]string{"nomatch"}, "", nil},
	}
	for _, c := range cases {
		_, fs := twFiles(t, r, ListFilesOptions{Patterns: c.patterns, Glob: c.glob})
		t.Run(strings.Join(c.patterns, ",")+"|"+c.glob, func(t *testing.T) { wstest.WantPaths(t, filePaths(fs), c.want) })
	}
	// Patterns match the workspace-relative path, not the one below path.
	res, fs := twFiles(t, r, ListFilesOptions{Path: "src", Patterns: []string{"src/*.go"}})
	wstest.WantPaths(t, filePaths(fs), []string{"src/main.go"})
	wstest.Want(t, res, map[string]any{"path": "src"})
	_, err := ListFiles(context.Background(), r, ListFilesOptions{Patterns: []string{"[a-"}})
	wstest.Code(t, err, "INVALID_ARGUMENT")
	_, err = ListFiles(context.Background(), r, ListFilesOptions{Exclude: []string{"{a,"}})
	wstest.Code(t, err, "INVALID_ARGUMENT")
}

func TestListFilesExclude(t *testing.T) {
	r := twRoot(t, map[string]string{"src/a.go": "", "src/a_test.go": "", "vendor/v.go": "", "src/vendor/w.go": "", "gen/x.go": ""})
	_, fs := twFiles(t, r, ListFilesOptions{Patterns: []string{"*.go"}, Exclude: []string{"*_test.go", "vendor"}})
	wstest.WantPaths(t, filePaths(fs), []string{"gen/x.go", "src/a.go"})
	_, fs = twFiles(t, r, ListFilesOptions{Exclude: []string{"/src/"}})
	wstest.WantPaths(t, filePaths(fs), []string{"gen/x.go", "vendor/v.go"})
	_, fs = twFiles(t, r, ListFilesOptions{Exclude: []string{"**/vendor/**", "gen/*"}})
	wstest.WantPaths(t, filePaths(fs), []string{"src/a.go", "src/a_test.go"})
}

func TestListFilesSymlinks(t *testing.T) {
	r := twRoot(t, map[string]string{"real.txt": "content", "dir/inner.txt": ""})
	out := wstest.Outside(t, r.Path)
	wstest.Symlink(t, r.Path, "link-file", "real.txt")
	wstest.Symlink(t, r.Path, "link-abs-in", r.Join("real.txt"))
	wstest.Symlink(t, r.Path, "link-dir", "dir")
	wstest.Symlink(t, r.Path, "link-out", filepath.Join(out, "secret.txt"))
	wstest.Symlink(t, r.Path, "link-out-dir", out)
	wstest.Symlink(t, r.Path, "link-dangling", "missing")
	_, fs := twFiles(t, r, ListFilesOptions{})
	wstest.WantPaths(t, filePaths(fs), []string{"dir/inner.txt", "link-abs-in", "link-file", "real.txt"})
	for _, f := range fs {
		if strings.HasPrefix(f.Path, "link") && (f.Type != "symlink" || f.SizeBytes == 7) {
			t.Errorf("%+v: want a symlink with lstat data", f)
		}
	}
}

func TestListFilesVisibility(t *testing.T) {
	r := twRoot(t, map[string]string{".gitignore": "*.tmp\ncache/\n", "a.go": "", "x.tmp": "", "cache/c.go": "", ".config/c.yml": "",
		"node_modules/m/i.js": "", ".git/config": "", "sub/.env": ""})
	testkit.Git(t, r.Path, "init", "-q")
	_, fs := twFiles(t, r, ListFilesOptions{})
	wstest.WantPaths(t, filePaths(fs), []string{"a.go"})
	_, fs = twFiles(t, r, ListFilesOptions{IncludeHidden: true})
	wstest.WantPaths(t, filePaths(fs), []string{".config/c.yml", ".gitignore", "a.go", "sub/.env"})
	_, fs = twFiles(t, r, ListFilesOptions{IncludeIgnored: true})
	wstest.WantPaths(t, filePaths(fs), []string{"a.go", "cache/c.go", "node_modules/m/i.js", "x.tmp"})
	_, fs = twFiles(t, r, ListFilesOptions{IncludeIgnored: true, IncludeHidden: true, Patterns: []string{".git/config"}})
	wstest.WantPaths(t, filePaths(fs), []string{".git/config"})
	// Named explicitly, a hidden directory lists.
	_, fs = twFiles(t, r, ListFilesOptions{Path: ".config"})
	wstest.WantPaths(t, filePaths(fs), []string{".config/c.yml"})
}

func TestListFilesLimitAndSort(t *testing.T) {
	r := twRoot(t, map[string]string{"a": "", "b": "", "c/d": "", "e": ""})
	base := time.Date(2022, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, p := range []string{"e", "c/d", "b", "a"} {
		ts := base.Add(time.Duration(i) * time.Minute)
		os.Chtimes(r.Join(p), ts, ts)
	}
	res, fs := twFiles(t, r, ListFilesOptions{MaxResults: 2})
	wstest.WantPaths(t, filePaths(fs), []string{"a", "b"})
	wstest.Want(t, res, map[string]any{"truncated": true})
	if ws := res["warnings"].([]string); len(ws) != 1 || !strings.Contains(ws[0], "result limit reached") {
		t.Errorf("warnings %v", ws)
	}
	res, _ = twFiles(t, r, ListFilesOptions{MaxResults: 4})
	wstest.Want(t, res, map[string]any{"truncated": false, "warnings": []string{}})
	_, fs = twFiles(t, r, ListFilesOptions{Sort: "modified"})
	wstest.WantPaths(t, filePaths(fs), []string{"e", "c/d", "b", "a"})
	// The walk order decides which files are kept; then they are sorted.
	_, fs = twFiles(t, r, ListFilesOptions{Sort: "modified", MaxResults: 3})
	wstest.WantPaths(t, filePaths(fs), []string{"c/d", "b", "a"})
}

func TestListFilesErrors(t *testing.T) {
	r := twRoot(t, map[string]string{"f.txt": ""})
	out := wstest.Outside(t, r.Path)
	wstest.Symlink(t, r.Path, "out", out)
	ctx := context.Background()
	for p, code := range map[string]string{"f.txt": "NOT_A_DIRECTORY", "nope": "NOT_FOUND", "out": "SYMLINK_ESCAPE", "/": "ABSOLUTE_PATH_DENIED", "..": "PATH_OUTSIDE_WORKSPACE"} {
		_, err := ListFiles(ctx, r, ListFilesOptions{Path: p})
		wstest.Code(t, err, code)
	}
	_, err := ListFiles(ctx, r, ListFilesOptions{Sort: "size"})
	wstest.Code(t, err, "INVALID_ARGUMENT")
}
