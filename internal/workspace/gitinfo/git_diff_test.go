package gitinfo

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sudocode/sudocode/internal/testkit"
	"github.com/sudocode/sudocode/internal/workspace"
	"github.com/sudocode/sudocode/internal/workspace/wstest"
)

func gitDiffT(t *testing.T, r *workspace.Root, o DiffOptions) map[string]any {
	t.Helper()
	if o.MaxBytes == 0 {
		o.MaxBytes = 262144
	}
	out, err := Diff(context.Background(), r, o)
	if err != nil {
		t.Fatal(err)
	}
	res := wstest.Fields(out)
	gitCheckDiffResult(t, res, o.MaxBytes)
	return res
}

// gitCheckDiffResult asserts the invariants of every git_diff result.
func gitCheckDiffResult(t *testing.T, res map[string]any, maxBytes int) {
	t.Helper()
	if _, ok := res["ok"]; ok {
		t.Fatal("result carries ok")
	}
	for _, k := range []string{"diff", "files", "truncated", "truncated_by", "output_lines", "output_bytes", "warnings"} {
		if _, ok := res[k]; !ok {
			t.Fatalf("result lacks %s: %v", k, res)
		}
	}
	diff := res["diff"].(string)
	if res["warnings"] == nil || res["files"] == nil {
		t.Fatalf("nil warnings/files: %v", res)
	}
	if res["output_bytes"] != len(diff) || len(diff) > maxBytes || !utf8.ValidString(diff) {
		t.Fatalf("output_bytes %v for %d bytes (max %d)", res["output_bytes"], len(diff), maxBytes)
	}
	if res["output_lines"] != len(splitLines(diff)) || res["output_lines"].(int) > 2000 {
		t.Fatalf("output_lines %v for %d lines", res["output_lines"], len(splitLines(diff)))
	}
	truncated := res["truncated"].(bool)
	textCut := res["truncated_by"] != nil
	if textCut && !truncated {
		t.Fatalf("truncated %v truncated_by %v", truncated, res["truncated_by"])
	}
	hasWarn, filesWarn := false, false
	for _, w := range res["warnings"].([]string) {
		hasWarn = hasWarn || w == "diff truncated"
		filesWarn = filesWarn || strings.HasPrefix(w, "file list truncated")
	}
	if hasWarn != textCut || truncated != (textCut || filesWarn) {
		t.Fatalf("truncated %v by %v warnings %v", truncated, res["truncated_by"], res["warnings"])
	}
	if _, err := json.Marshal(res); err != nil {
		t.Fatal(err)
	}
}

// gitFileList renders files as "path<-old:status[:bin]".
func gitFileList(res map[string]any) []string {
	return render(res["files"].([]DiffFile), func(f DiffFile) string {
		s := f.Path
		if f.OldPath != "" {
			s += "<-" + f.OldPath
		}
		s += ":" + f.Status
		if f.Binary {
			s += ":bin"
		}
		return s
	})
}

func gitWantFiles(t *testing.T, res map[string]any, want ...string) {
	t.Helper()
	wantList(t, "files", gitFileList(res), want)
}

func TestGitDiffStagedUnstaged(t *testing.T) {
	repo := testkit.RepoOf(t, map[string]string{"u.txt": "one\ntwo\n", "s.txt": "alpha\nbeta\n", "b.txt": "x\n"})
	wstest.Write(t, repo, map[string]string{"s.txt": "alpha\nBETA\n", "b.txt": "y\n"})
	testkit.Git(t, repo, "add", "s.txt", "b.txt")
	wstest.Write(t, repo, map[string]string{"u.txt": "one\nTWO\n", "b.txt": "z\n", "untracked.txt": "new\n"})
	r := wstest.Open(t, repo, workspace.Open)

	both := gitDiffT(t, r, DiffOptions{Staged: true, Unstaged: true, ContextLines: 3})
	d := both["diff"].(string)
	iu, is := strings.Index(d, "diff --git a/u.txt b/u.txt"), strings.Index(d, "diff --git a/s.txt b/s.txt")
	if iu < 0 || is < 0 || iu > is {
		t.Fatalf("unstaged part must come first:\n%s", d)
	}
	// b.txt is in both parts: twice in the text, once in files.
	if strings.Count(d, "diff --git a/b.txt b/b.txt") != 2 || !strings.Contains(d, "-x\n+y\n") || !strings.Contains(d, "-y\n+z\n") {
		t.Fatalf("b.txt parts:\n%s", d)
	}
	if strings.Contains(d, "untracked.txt") {
		t.Fatalf("untracked files are not diffed:\n%s", d)
	}
	gitWantFiles(t, both, "b.txt:modified", "u.txt:modified", "s.txt:modified")
	if both["truncated"] != false || both["truncated_by"] != nil || len(both["warnings"].([]string)) != 0 {
		t.Fatalf("%v", both)
	}

	un := gitDiffT(t, r, DiffOptions{Unstaged: true, ContextLines: 3})
	want := "diff --git a/b.txt b/b.txt\n"
	if d := un["diff"].(string); !strings.HasPrefix(d, want) || strings.Contains(d, "s.txt") || !strings.Contains(d, "@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n") {
		t.Fatalf("unstaged:\n%s", d)
	}
	gitWantFiles(t, un, "b.txt:modified", "u.txt:modified")

	st := gitDiffT(t, r, DiffOptions{Staged: true, ContextLines: 3})
	if d := st["diff"].(string); strings.Contains(d, "u.txt") || !strings.Contains(d, "--- a/s.txt\n+++ b/s.txt\n@@ -1,2 +1,2 @@\n alpha\n-beta\n+BETA\n") {
		t.Fatalf("staged:\n%s", d)
	}
	gitWantFiles(t, st, "b.txt:modified", "s.txt:modified")

	none := gitDiffT(t, r, DiffOptions{ContextLines: 3})
	if none["diff"] != "" || len(none["files"].([]DiffFile)) != 0 || none["output_lines"] != 0 || none["truncated"] != false {
		t.Fatalf("both flags false: %v", none)
	}
}

func TestGitDiffFileStatuses(t *testing.T) {
	body := strings.Repeat("a fairly long line so renames are detected\n", 20)
	repo := testkit.RepoOf(t, map[string]string{"mod.txt": "m\n", "del.txt": "d\n", "old.txt": body, "bin.dat": "\x00\x01\x02", "wdel.txt": "w\n"})
	wstest.Write(t, repo, map[string]string{"mod.txt": "m2\n", "add.txt": "new\n", "bin.dat": "\x00\x03\x04\x05"})
	testkit.Git(t, repo, "rm", "-q", "del.txt")
	testkit.Git(t, repo, "mv", "old.txt", "new.txt")
	testkit.Git(t, repo, "add", "-A")
	os.Remove(filepath.Join(repo, "wdel.txt"))
	r := wstest.Open(t, repo, workspace.Open)

	st := gitDiffT(t, r, DiffOptions{Staged: true, ContextLines: 3})
	gitWantFiles(t, st, "add.txt:added", "bin.dat:modified:bin", "del.txt:deleted", "mod.txt:modified", "new.txt<-old.txt:renamed")
	d := st["diff"].(string)
	for _, want := range []string{"rename from old.txt\nrename to new.txt\n", "Binary files a/bin.dat and b/bin.dat differ\n",
		"new file mode 100644\n", "deleted file mode 100644\n"} {
		if !strings.Contains(d, want) {
			t.Fatalf("staged diff lacks %q:\n%s", want, d)
		}
	}
	un := gitDiffT(t, r, DiffOptions{Unstaged: true, ContextLines: 3})
	gitWantFiles(t, un, "wdel.txt:deleted")
	both := gitDiffT(t, r, DiffOptions{Unstaged: true, Staged: true, ContextLines: 3})
	gitWantFiles(t, both, "wdel.txt:deleted", "add.txt:added", "bin.dat:modified:bin", "del.txt:deleted", "mod.txt:modified", "new.txt<-old.txt:renamed")
}

func TestGitDiffWorktreeDeletion(t *testing.T) {
	repo := testkit.RepoOf(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	wstest.Write(t, repo, map[string]string{"b.txt": "b2\n"})
	testkit.Git(t, repo, "add", "b.txt")
	os.Remove(filepath.Join(repo, "a.txt"))
	os.Remove(filepath.Join(repo, "b.txt"))
	r := wstest.Open(t, repo, workspace.Open)
	res := gitDiffT(t, r, DiffOptions{Staged: true, Unstaged: true, ContextLines: 3})
	// b.txt: modified in the index, deleted in the work tree.
	gitWantFiles(t, res, "a.txt:deleted", "b.txt:deleted")
}

func TestGitDiffContextLines(t *testing.T) {
	var lines []string
	for i := 1; i <= 20; i++ {
		lines = append(lines, fmt.Sprintf("line %d", i))
	}
	orig := strings.Join(lines, "\n") + "\n"
	repo := testkit.RepoOf(t, map[string]string{"f.txt": orig})
	lines[9] = "CHANGED"
	wstest.Write(t, repo, map[string]string{"f.txt": strings.Join(lines, "\n") + "\n"})
	r := wstest.Open(t, repo, workspace.Open)
	for n, hdr := range map[int]string{0: "@@ -10 +10 @@ line 9\n-line 10\n+CHANGED\n", 1: "@@ -9,3 +9,3 @@ line 8\n line 9\n-line 10\n+CHANGED\n line 11\n", 3: "@@ -7,7 +7,7 @@", 20: "@@ -1,20 +1,20 @@"} {
		res := gitDiffT(t, r, DiffOptions{Unstaged: true, ContextLines: n})
		if !strings.Contains(res["diff"].(string), hdr) {
			t.Fatalf("context %d: want %q in\n%s", n, hdr, res["diff"])
		}
	}
}

func TestGitDiffTruncateBytes(t *testing.T) {
	files := map[string]string{}
	for i := 0; i < 5; i++ {
		files[fmt.Sprintf("f%d.txt", i)] = strings.Repeat("old line\n", 100)
	}
	repo := testkit.RepoOf(t, files)
	for name := range files {
		files[name] = strings.Repeat("new line é\n", 100)
	}
	wstest.Write(t, repo, files)
	r := wstest.Open(t, repo, workspace.Open)
	full := gitDiffT(t, r, DiffOptions{Unstaged: true, ContextLines: 3})
	res := gitDiffT(t, r, DiffOptions{Unstaged: true, ContextLines: 3, MaxBytes: 1000})
	d := res["diff"].(string)
	if res["truncated"] != true || res["truncated_by"] != "bytes" || !strings.HasSuffix(d, "\n") || len(d) > 1000 || len(d) < 900 {
		t.Fatalf("truncated %v by %v, %d bytes", res["truncated"], res["truncated_by"], len(d))
	}
	if !strings.HasPrefix(full["diff"].(string), d) {
		t.Fatal("the cut is not a head of the full diff")
	}
	gitWantFiles(t, res, "f0.txt:modified", "f1.txt:modified", "f2.txt:modified", "f3.txt:modified", "f4.txt:modified")
	// Exactly at the size: not truncated.
	n := len(full["diff"].(string))
	exact := gitDiffT(t, r, DiffOptions{Unstaged: true, ContextLines: 3, MaxBytes: n})
	if exact["truncated"] != false || exact["diff"] != full["diff"] {
		t.Fatalf("max_bytes = size: truncated %v", exact["truncated"])
	}
	less := gitDiffT(t, r, DiffOptions{Unstaged: true, ContextLines: 3, MaxBytes: n - 1})
	if less["truncated"] != true {
		t.Fatal("max_bytes = size-1: not truncated")
	}
	// The staged part is cut away entirely but its files are listed.
	wstest.Write(t, repo, map[string]string{"staged.txt": "s\n"})
	testkit.Git(t, repo, "add", "staged.txt")
	both := gitDiffT(t, r, DiffOptions{Unstaged: true, Staged: true, ContextLines: 3, MaxBytes: 1000})
	if strings.Contains(both["diff"].(string), "staged.txt") || len(both["files"].([]DiffFile)) != 6 {
		t.Fatalf("files %v", gitFileList(both))
	}
	// A first line longer than max_bytes: its UTF-8-safe prefix.
	tiny := gitDiffT(t, r, DiffOptions{Unstaged: true, ContextLines: 3, MaxBytes: 5})
	if tiny["diff"] != "diff " || tiny["output_lines"] != 1 || tiny["truncated_by"] != "bytes" || len(tiny["warnings"].([]string)) != 2 {
		t.Fatalf("tiny %v", tiny)
	}
}

func TestGitDiffTruncateLines(t *testing.T) {
	repo := testkit.RepoOf(t, map[string]string{"a.txt": "a\n"})
	wstest.Write(t, repo, map[string]string{"a.txt": strings.Repeat("x\n", 3000)})
	r := wstest.Open(t, repo, workspace.Open)
	res := gitDiffT(t, r, DiffOptions{Unstaged: true, ContextLines: 3, MaxBytes: 1 << 20})
	if res["truncated"] != true || res["truncated_by"] != "lines" || res["output_lines"] != 2000 {
		t.Fatalf("truncated %v by %v lines %v", res["truncated"], res["truncated_by"], res["output_lines"])
	}
	gitWantFiles(t, res, "a.txt:modified")
	// 2000 lines exactly are not truncated.
	wstest.Write(t, repo, map[string]string{"a.txt": "a\n" + strings.Repeat("x\n", 2000-6)})
	res = gitDiffT(t, r, DiffOptions{Unstaged: true, ContextLines: 3, MaxBytes: 1 << 20})
	if res["output_lines"] != 2000 || res["truncated"] != false {
		t.Fatalf("lines %v truncated %v", res["output_lines"], res["truncated"])
	}
}

func TestGitDiffFilters(t *testing.T) {
	repo := testkit.RepoOf(t, map[string]string{"a.txt": "a\n", "dir/b.txt": "b\n", "dir/c.txt": "c\n", "*.txt": "star\n"})
	wstest.Write(t, repo, map[string]string{"a.txt": "A\n", "dir/b.txt": "B\n", "dir/c.txt": "C\n"})
	outside := t.TempDir()
	wstest.Write(t, outside, map[string]string{"x.txt": "x\n"})
	if err := os.Symlink(outside, filepath.Join(repo, "escape")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("dir", filepath.Join(repo, "inside")); err != nil {
		t.Fatal(err)
	}
	r := wstest.Open(t, repo, workspace.Open)
	cases := []struct {
		paths []string
		want  []string
	}{
		{[]string{"a.txt"}, []string{"a.txt:modified"}},
		{[]string{"dir"}, []string{"dir/b.txt:modified", "dir/c.txt:modified"}},
		{[]string{"dir/c.txt", "a.txt", "a.txt"}, []string{"a.txt:modified", "dir/c.txt:modified"}},
		{[]string{"missing.txt"}, nil},       // a write target may not exist
		{[]string{"newdir/deep/x.txt"}, nil}, // nor its parents
		{[]string{"*.txt"}, nil},             // literal, not a glob (and unchanged)
		{[]string{"./dir//b.txt"}, []string{"dir/b.txt:modified"}},
	}
	for _, c := range cases {
		res := gitDiffT(t, r, DiffOptions{Paths: c.paths, Unstaged: true, ContextLines: 3})
		gitWantFiles(t, res, c.want...)
		if len(c.want) == 0 && res["diff"] != "" {
			t.Fatalf("%v: %q", c.paths, res["diff"])
		}
	}
	for path, code := range map[string]string{
		"/etc/passwd":    "ABSOLUTE_PATH_DENIED",
		"../x":           "PATH_OUTSIDE_WORKSPACE",
		"dir/../../x":    "PATH_OUTSIDE_WORKSPACE",
		"escape/x.txt":   "SYMLINK_ESCAPE",
		"escape/new.txt": "PATH_OUTSIDE_WORKSPACE",
		"escape":         "SYMLINK_ESCAPE",
		".":              "INVALID_ARGUMENT",
		"":               "INVALID_ARGUMENT",
		"C:\\Windows\\x": "ABSOLUTE_PATH_DENIED",
	} {
		_, err := Diff(context.Background(), r, DiffOptions{Paths: []string{"a.txt", path}, Unstaged: true, ContextLines: 3, MaxBytes: 1000})
		wstest.Code(t, err, code)
	}
}

func TestGitDiffSubdirWorkspace(t *testing.T) {
	repo := testkit.RepoOf(t, map[string]string{"top.txt": "t\n", "sub/in.txt": "i\n", "sub/d/x.txt": "x\n"})
	wstest.Write(t, repo, map[string]string{"top.txt": "T\n", "sub/in.txt": "I\n", "sub/d/x.txt": "X\n"})
	testkit.Git(t, repo, "add", "sub/d/x.txt")
	r := wstest.Open(t, filepath.Join(repo, "sub"), workspace.Open)
	res := gitDiffT(t, r, DiffOptions{Unstaged: true, Staged: true, ContextLines: 3})
	d := res["diff"].(string)
	if strings.Contains(d, "top.txt") || strings.Contains(d, "sub/") ||
		!strings.Contains(d, "diff --git a/in.txt b/in.txt\n") || !strings.Contains(d, "--- a/d/x.txt\n+++ b/d/x.txt\n") {
		t.Fatalf("sub-directory diff:\n%s", d)
	}
	gitWantFiles(t, res, "in.txt:modified", "d/x.txt:modified")
	res = gitDiffT(t, r, DiffOptions{Paths: []string{"d"}, Unstaged: true, Staged: true, ContextLines: 3})
	gitWantFiles(t, res, "d/x.txt:modified")
}

func TestGitDiffNoCommits(t *testing.T) {
	repo := t.TempDir()
	testkit.Git(t, repo, "init", "-q")
	wstest.Write(t, repo, map[string]string{"a.txt": "a\n"})
	testkit.Git(t, repo, "add", "a.txt")
	r := wstest.Open(t, repo, workspace.Open)
	res := gitDiffT(t, r, DiffOptions{Staged: true, Unstaged: true, ContextLines: 3})
	gitWantFiles(t, res, "a.txt:added")
	if !strings.Contains(res["diff"].(string), "--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1 @@\n+a\n") {
		t.Fatalf("%s", res["diff"])
	}
}

func TestGitDiffInvalidUTF8(t *testing.T) {
	repo := testkit.RepoOf(t, map[string]string{"l.txt": "caf\xe9\n"})
	wstest.Write(t, repo, map[string]string{"l.txt": "CAF\xe9\n"})
	r := wstest.Open(t, repo, workspace.Open)
	res := gitDiffT(t, r, DiffOptions{Unstaged: true, ContextLines: 3})
	if !strings.Contains(res["diff"].(string), "-caf\uFFFD\n+CAF\uFFFD\n") {
		t.Fatalf("%q", res["diff"])
	}
}

func TestGitDiffHeadCut(t *testing.T) {
	for _, c := range []struct {
		s          string
		max, lines int
		out, by    string
		n          int
		firstCut   bool
	}{
		{"a\nb\nc\n", 100, 10, "a\nb\nc\n", "", 3, false},
		{"a\nb\nc", 100, 10, "a\nb\nc", "", 3, false},
		{"a\nb\nc\n", 5, 10, "a\nb\n", "bytes", 2, false},
		{"a\nb\nc\n", 6, 10, "a\nb\nc\n", "", 3, false},
		{"a\nb\nc\n", 100, 2, "a\nb\n", "lines", 2, false},
		{"a\nb\n", 100, 2, "a\nb\n", "", 2, false},
		{"ééé\n", 4, 10, "éé", "bytes", 1, true},
		{"ééé\n", 1, 10, "", "bytes", 0, true},
		{"", 1, 10, "", "", 0, false},
	} {
		out, by, n, fc := headCut(c.s, c.max, c.lines)
		if out != c.out || by != c.by || n != c.n || fc != c.firstCut {
			t.Errorf("headCut(%q, %d, %d) = %q %q %d %v", c.s, c.max, c.lines, out, by, n, fc)
		}
	}
}

func TestGitDiffTrimPartialRune(t *testing.T) {
	for in, want := range map[string]string{"ab": "ab", "a\xc3": "a", "a\xc3\xa9": "a\xc3\xa9", "a\xe2\x82": "a", "a\xe2\x82\xac": "a\xe2\x82\xac", "": ""} {
		if got := string(trimPartialRune([]byte(in))); got != want {
			t.Errorf("trimPartialRune(%q) = %q", in, got)
		}
	}
}

func TestGitDiffUnmerged(t *testing.T) {
	repo := testkit.RepoOf(t, map[string]string{"c.txt": "base\n", "d.txt": "d\n"})
	testkit.Git(t, repo, "checkout", "-qb", "other")
	wstest.Write(t, repo, map[string]string{"c.txt": "other\n"})
	testkit.Git(t, repo, "commit", "-qam", "other")
	testkit.Git(t, repo, "checkout", "-q", "main")
	wstest.Write(t, repo, map[string]string{"c.txt": "main\n"})
	testkit.Git(t, repo, "commit", "-qam", "main")
	_ = testkit.GitCmd(repo, "-c", "user.name=T", "-c", "user.email=t@e", "merge", "-q", "other").Run()
	wstest.Write(t, repo, map[string]string{"d.txt": "D\n"})
	r := wstest.Open(t, repo, workspace.Open)
	// A combined diff for the conflict, and the plain one next to it.
	un := gitDiffT(t, r, DiffOptions{Unstaged: true, ContextLines: 3})
	d := un["diff"].(string)
	if !strings.Contains(d, "diff --cc c.txt\n") || !strings.Contains(d, "++<<<<<<< HEAD\n") || !strings.Contains(d, "diff --git a/d.txt b/d.txt\n") {
		t.Fatalf("unmerged diff:\n%s", d)
	}
	gitWantFiles(t, un, "c.txt:modified", "d.txt:modified")
	both := gitDiffT(t, r, DiffOptions{Unstaged: true, Staged: true, ContextLines: 3})
	gitWantFiles(t, both, "c.txt:modified", "d.txt:modified")
}

func TestGitDiffFileCap(t *testing.T) {
	repo := testkit.RepoOf(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n"})
	wstest.Write(t, repo, map[string]string{"a.txt": "A\n", "b.txt": "B\n", "c.txt": "C\n"})
	wstest.Set(t, &diffMaxFiles, 2)
	r := wstest.Open(t, repo, workspace.Open)
	res := gitDiffT(t, r, DiffOptions{Unstaged: true, ContextLines: 3})
	gitWantFiles(t, res, "a.txt:modified", "b.txt:modified")
	if res["truncated"] != true || res["truncated_by"] != nil || !strings.Contains(res["diff"].(string), "c.txt") {
		t.Fatalf("%v", res)
	}
}
