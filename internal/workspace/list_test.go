package workspace

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sudocode/sudocode/internal/racesize"
	"github.com/sudocode/sudocode/internal/testkit"
	"github.com/sudocode/sudocode/internal/workspace/wstest"
)

func twList(t testing.TB, r *Root, o ListDirOptions) (map[string]any, []ListDirEntry) {
	t.Helper()
	out, err := ListDir(context.Background(), r, o)
	if err != nil {
		t.Fatalf("ListDir(%+v): %v", o, err)
	}
	res := wstest.Fields(out)
	for _, k := range []string{"path", "entries", "truncated", "warnings"} {
		if _, ok := res[k]; !ok {
			t.Fatalf("field %s missing in %v", k, res)
		}
	}
	if res["warnings"] == nil {
		t.Fatal("warnings is nil")
	}
	return res, res["entries"].([]ListDirEntry)
}

func entryPaths(es []ListDirEntry) []string {
	out := []string{}
	for _, e := range es {
		out = append(out, e.Path)
	}
	return out
}

func TestListDirEntryFields(t *testing.T) {
	r := twRoot(t, map[string]string{"file.txt": "hello", "sub/inner.txt": "x", ".hidden": "h"})
	out := wstest.Outside(t, r.Path)
	wstest.Symlink(t, r.Path, "link-in", "file.txt")
	wstest.Symlink(t, r.Path, "link-out", filepath.Join(out, "secret.txt"))
	wstest.Symlink(t, r.Path, "link-dangling", "nowhere")
	mtime := time.Date(2024, 5, 6, 7, 8, 9, 500_000_000, time.FixedZone("X", 3600))
	if err := os.Chtimes(r.Join("file.txt"), mtime, mtime); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(r.Join("fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, es := twList(t, r, ListDirOptions{})
	wstest.Want(t, res, map[string]any{"path": ".", "truncated": false, "warnings": []string{}})
	wstest.WantPaths(t, entryPaths(es), []string{"fifo", "file.txt", "link-dangling", "link-in", "link-out", "sub"})
	by := map[string]ListDirEntry{}
	for _, e := range es {
		by[e.Name] = e
	}
	f := by["file.txt"]
	if f.Type != "file" || f.SizeBytes != 5 || f.Modified != "2024-05-06T06:08:09.5Z" || f.IsHidden || f.IsIgnored || f.SymlinkTarget != "" {
		t.Errorf("file entry %+v", f)
	}
	if d := by["sub"]; d.Type != "directory" || d.Path != "sub" {
		t.Errorf("dir entry %+v", d)
	}
	if e := by["fifo"]; e.Type != "other" {
		t.Errorf("fifo entry %+v", e)
	}
	if l := by["link-in"]; l.Type != "symlink" || l.SymlinkTarget != "file.txt" || l.SizeBytes != int64(len("file.txt")) {
		t.Errorf("inside link %+v (want lstat data and the raw target)", l)
	}
	if l := by["link-dangling"]; l.Type != "symlink" || l.SymlinkTarget != "nowhere" {
		t.Errorf("dangling link %+v", l)
	}
	if l := by["link-out"]; l.Type != "symlink" || l.SymlinkTarget != "" {
		t.Errorf("escaping link %+v: its target must not be given", l)
	}
	for _, e := range es {
		if _, err := time.Parse(time.RFC3339Nano, e.Modified); err != nil || !strings.HasSuffix(e.Modified, "Z") {
			t.Errorf("modified %q of %s is not RFC 3339 UTC", e.Modified, e.Path)
		}
	}
}

func TestListDirRecursionDepth(t *testing.T) {
	r := twRoot(t, map[string]string{"a/b/c/d.txt": "", "a/x.txt": "", "top.txt": ""})
	wstest.Symlink(t, r.Path, "link-dir", "a")
	_, es := twList(t, r, ListDirOptions{})
	wstest.WantPaths(t, entryPaths(es), []string{"a", "link-dir", "top.txt"})
	// recursive with the default depth 1 is still flat.
	_, es = twList(t, r, ListDirOptions{Recursive: true})
	wstest.WantPaths(t, entryPaths(es), []string{"a", "link-dir", "top.txt"})
	// A depth without recursive is flat too.
	_, es = twList(t, r, ListDirOptions{MaxDepth: 5})
	wstest.WantPaths(t, entryPaths(es), []string{"a", "link-dir", "top.txt"})
	_, es = twList(t, r, ListDirOptions{Recursive: true, MaxDepth: 2})
	wstest.WantPaths(t, entryPaths(es), []string{"a", "a/b", "link-dir", "top.txt", "a/x.txt"})
	// Never through the symlinked directory.
	_, es = twList(t, r, ListDirOptions{Recursive: true, MaxDepth: 20})
	wstest.WantPaths(t, entryPaths(es), []string{"a", "a/b", "a/b/c", "a/b/c/d.txt", "link-dir", "top.txt", "a/x.txt"})
	// A subdirectory: paths stay workspace-relative.
	res, es := twList(t, r, ListDirOptions{Path: "a/b", Recursive: true, MaxDepth: 3})
	wstest.Want(t, res, map[string]any{"path": "a/b"})
	wstest.WantPaths(t, entryPaths(es), []string{"a/b/c", "a/b/c/d.txt"})
	// Through the symlink the canonical path is listed.
	res, es = twList(t, r, ListDirOptions{Path: "link-dir"})
	wstest.Want(t, res, map[string]any{"path": "a"})
	wstest.WantPaths(t, entryPaths(es), []string{"a/b", "a/x.txt"})
}

func TestListDirSorting(t *testing.T) {
	r := twRoot(t, map[string]string{"b/x": "", "a/x": "", "zeta.txt": "", "Alpha/": "", "m.txt": ""})
	wstest.Symlink(t, r.Path, "link", "m.txt")
	base := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, p := range []string{"zeta.txt", "a", "m.txt", "b/x", "a/x", "Alpha", "b"} {
		ts := base.Add(time.Duration(i) * time.Hour)
		if err := os.Chtimes(r.Join(p), ts, ts); err != nil {
			t.Fatal(err)
		}
	}
	ts := base.Add(-time.Hour)
	if err := lchtimes(r.Join("link"), ts); err != nil {
		t.Fatal(err)
	}
	_, es := twList(t, r, ListDirOptions{Recursive: true, MaxDepth: 2})
	wstest.WantPaths(t, entryPaths(es), []string{"Alpha", "a", "b", "link", "m.txt", "a/x", "b/x", "zeta.txt"})
	_, es = twList(t, r, ListDirOptions{Recursive: true, MaxDepth: 2, Sort: "type"})
	wstest.WantPaths(t, entryPaths(es), []string{"Alpha", "a", "b", "m.txt", "a/x", "b/x", "zeta.txt", "link"})
	_, es = twList(t, r, ListDirOptions{Recursive: true, MaxDepth: 2, Sort: "modified"})
	wstest.WantPaths(t, entryPaths(es), []string{"link", "zeta.txt", "a", "m.txt", "b/x", "a/x", "Alpha", "b"})
	// The cut keeps the first entries of the whole sorted result.
	res, es := twList(t, r, ListDirOptions{Recursive: true, MaxDepth: 2, Sort: "modified", MaxEntries: 3})
	wstest.WantPaths(t, entryPaths(es), []string{"link", "zeta.txt", "a"})
	wstest.Want(t, res, map[string]any{"truncated": true})
	if _, err := ListDir(context.Background(), r, ListDirOptions{Sort: "size"}); err == nil {
		t.Error("unknown sort accepted")
	}
}

func lchtimes(p string, t time.Time) error {
	ts := []unix.Timespec{unix.NsecToTimespec(t.UnixNano()), unix.NsecToTimespec(t.UnixNano())}
	return unix.UtimesNanoAt(unix.AT_FDCWD, p, ts, unix.AT_SYMLINK_NOFOLLOW)
}

func TestListDirTruncation(t *testing.T) {
	r := twRoot(t, map[string]string{"1": "", "2": "", "3": "", "4": "", "5": ""})
	res, es := twList(t, r, ListDirOptions{MaxEntries: 3})
	wstest.WantPaths(t, entryPaths(es), []string{"1", "2", "3"})
	wstest.Want(t, res, map[string]any{"truncated": true})
	if ws := res["warnings"].([]string); len(ws) != 1 || !strings.Contains(ws[0], "entry limit reached") {
		t.Errorf("warnings %v", ws)
	}
	res, _ = twList(t, r, ListDirOptions{MaxEntries: 5})
	wstest.Want(t, res, map[string]any{"truncated": false, "warnings": []string{}})
	// Filtered entries are not "left out".
	wstest.Write(t, r.Path, map[string]string{".hidden": "", "node_modules/x": ""})
	res, _ = twList(t, r, ListDirOptions{MaxEntries: 5})
	wstest.Want(t, res, map[string]any{"truncated": false})
}

func TestListDirVisibility(t *testing.T) {
	files := map[string]string{"src/main.go": "", ".env": "SECRET", ".github/workflows/ci.yml": "", "node_modules/pkg/index.js": "",
		"build/out.o": "", "target/x": "", "dist/y": "", ".git/HEAD": "", "__pycache__/m.pyc": "", "README": ""}
	r := twRoot(t, files)
	_, es := twList(t, r, ListDirOptions{Recursive: true, MaxDepth: 5})
	wstest.WantPaths(t, entryPaths(es), []string{"README", "src/main.go", "src"})

	_, es = twList(t, r, ListDirOptions{IncludeHidden: true})
	wstest.WantPaths(t, entryPaths(es), []string{".env", ".github", "README", "src"})
	for _, e := range es {
		if e.IsHidden != strings.HasPrefix(e.Name, ".") || e.IsIgnored {
			t.Errorf("entry %+v", e)
		}
	}
	_, es = twList(t, r, ListDirOptions{IncludeIgnored: true})
	wstest.WantPaths(t, entryPaths(es), []string{"README", "__pycache__", "build", "dist", "node_modules", "src", "target"})
	for _, e := range es {
		if want := e.Name != "README" && e.Name != "src"; e.IsIgnored != want {
			t.Errorf("entry %s is_ignored %v", e.Name, e.IsIgnored)
		}
	}
	// .git needs both; what is below an ignored directory is ignored too.
	_, es = twList(t, r, ListDirOptions{IncludeIgnored: true, IncludeHidden: true, Recursive: true, MaxDepth: 3})
	by := map[string]ListDirEntry{}
	for _, e := range es {
		by[e.Path] = e
	}
	for _, p := range []string{".git", ".git/HEAD", "node_modules/pkg", "node_modules/pkg/index.js"} {
		if e, ok := by[p]; !ok || !e.IsIgnored {
			t.Errorf("%s: %+v, want listed and ignored", p, e)
		}
	}
	if e := by[".github/workflows"]; e.IsIgnored || e.IsHidden {
		t.Errorf(".github/workflows %+v", e)
	}
	// An explicitly named directory is not filtered itself.
	_, es = twList(t, r, ListDirOptions{Path: ".github"})
	wstest.WantPaths(t, entryPaths(es), []string{".github/workflows"})
	_, es = twList(t, r, ListDirOptions{Path: "node_modules", Recursive: true, MaxDepth: 2})
	wstest.WantPaths(t, entryPaths(es), []string{"node_modules/pkg/index.js", "node_modules/pkg"})
	for _, e := range es {
		if e.IsIgnored {
			t.Errorf("%+v: below the named directory nothing is ignored", e)
		}
	}
}

func TestListDirGitIgnore(t *testing.T) {
	r := twRoot(t, map[string]string{".gitignore": "*.log\nout/\n!keep.log\n", "app.log": "", "keep.log": "", "main.go": "",
		"out/bin": "", "sub/debug.log": "", "sub/ok.txt": "", "tracked.log": ""})
	testkit.Git(t, r.Path, "init", "-q")
	testkit.Git(t, r.Path, "add", "-f", "tracked.log", ".gitignore")
	_, es := twList(t, r, ListDirOptions{Recursive: true, MaxDepth: 3})
	wstest.WantPaths(t, entryPaths(es), []string{"keep.log", "main.go", "sub/ok.txt", "sub", "tracked.log"})
	_, es = twList(t, r, ListDirOptions{Recursive: true, MaxDepth: 3, IncludeIgnored: true})
	ign := []string{}
	for _, e := range es {
		if e.IsIgnored {
			ign = append(ign, e.Path)
		}
	}
	wstest.WantPaths(t, ign, []string{"app.log", "out/bin", "sub/debug.log", "out"})
	// Listing a subdirectory applies the rules below it.
	_, es = twList(t, r, ListDirOptions{Path: "sub"})
	wstest.WantPaths(t, entryPaths(es), []string{"sub/ok.txt"})
	// An ignored directory named explicitly lists its contents.
	_, es = twList(t, r, ListDirOptions{Path: "out"})
	wstest.WantPaths(t, entryPaths(es), []string{"out/bin"})
}

func TestListDirErrors(t *testing.T) {
	r := twRoot(t, map[string]string{"f.txt": "", "d/": ""})
	out := wstest.Outside(t, r.Path)
	wstest.Symlink(t, r.Path, "out-dir", out)
	ctx := context.Background()
	for p, code := range map[string]string{"f.txt": "NOT_A_DIRECTORY", "missing": "NOT_FOUND", "out-dir": "SYMLINK_ESCAPE",
		"/tmp": "ABSOLUTE_PATH_DENIED", "d/..": "PATH_OUTSIDE_WORKSPACE", "a\x00": "INVALID_ARGUMENT"} {
		_, err := ListDir(ctx, r, ListDirOptions{Path: p})
		wstest.Code(t, err, code)
	}
	// The symlink to the outside is listed as a link, never followed.
	_, es := twList(t, r, ListDirOptions{Recursive: true, MaxDepth: 5})
	wstest.WantPaths(t, entryPaths(es), []string{"d", "f.txt", "out-dir"})
}

// TestListDirHugeDirectory lists a directory of 100,000 files (20,000
// under the race detector, still far over both caps) within the
// limits: sorted and cut at max_entries, by list_dir and list_files. How
// fast is BenchmarkHugeDirectory's to measure.
func TestListDirHugeDirectory(t *testing.T) {
	r := twRoot(t, nil)
	wstest.HugeDir(t, r.Path, racesize.Of(100_000, 20_000))
	for _, sort := range []string{"name", "type", "modified"} {
		res, es := twList(t, r, ListDirOptions{Path: "big", Sort: sort, MaxEntries: 1000})
		if len(es) != 1000 || res["truncated"] != true {
			t.Fatalf("%s: %d entries, truncated %v", sort, len(es), res["truncated"])
		}
		if sort != "modified" && (es[0].Name != "f000000.txt" || es[999].Name != "f000999.txt") {
			t.Errorf("%s: first %s last %s", sort, es[0].Name, es[999].Name)
		}
	}
	res, err := ListFiles(context.Background(), r, ListFilesOptions{Path: "big", Patterns: []string{"*.txt"}})
	if err != nil {
		t.Fatal(err)
	}
	if files := res.Files; len(files) != 5000 || !res.Truncated || files[0].Path != "big/f000000.txt" {
		t.Errorf("list_files: %d files, truncated %v", len(files), res.Truncated)
	}
}

// BenchmarkHugeDirectory times list_dir (each sort) and list_files on a
// directory of 100,000 files (each well under a second here).
func BenchmarkHugeDirectory(b *testing.B) {
	r := twRoot(b, nil)
	wstest.HugeDir(b, r.Path, 100_000)
	for _, sort := range []string{"name", "type", "modified"} {
		b.Run("list_dir/"+sort, func(b *testing.B) {
			for b.Loop() {
				twList(b, r, ListDirOptions{Path: "big", Sort: sort, MaxEntries: 1000})
			}
		})
	}
	b.Run("list_files", func(b *testing.B) {
		for b.Loop() {
			if _, err := ListFiles(context.Background(), r, ListFilesOptions{Path: "big", Patterns: []string{"*.txt"}}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
