package gitinfo

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/testkit"
	"github.com/sudocode/sudocode/internal/workspace"
	"github.com/sudocode/sudocode/internal/workspace/wstest"
)

func gitStr(s string) *string { return &s }

func TestGitDiffFallback(t *testing.T) {
	dir := t.TempDir()
	wstest.Write(t, dir, map[string]string{
		"mod.txt":      "a\nb\nc\n",
		"new.txt":      "x\ny\n",
		"same.txt":     "same\n",
		"bin.dat":      "text\x00now binary",
		"nonl.txt":     "one\ntwo",
		"sub/deep.txt": "deep2\n",
		"empty.txt":    "",
	})
	r := wstest.Open(t, dir, workspace.Open)
	orig := map[string]*string{
		"mod.txt":        gitStr("a\nB\nc\n"),
		"new.txt":        nil,
		"del.txt":        gitStr("gone\n"),
		"same.txt":       gitStr("same\n"),
		"bin.dat":        gitStr("text\n"),
		"nonl.txt":       gitStr("one\ntwo\n"),
		"./sub/deep.txt": gitStr("deep1\n"),
		"tmp.txt":        nil, // created then deleted: no change
		"empty.txt":      nil,
		"../evil":        gitStr("x"), // not a workspace path: ignored
	}
	res := gitDiffT(t, r, DiffOptions{Unstaged: true, ContextLines: 3, Originals: orig})
	gitWantFiles(t, res, "bin.dat:modified:bin", "del.txt:deleted", "empty.txt:added", "mod.txt:modified", "new.txt:added", "nonl.txt:modified", "sub/deep.txt:modified")
	if w := res["warnings"].([]string); len(w) != 1 || w[0] != "non-git diff fallback" {
		t.Fatalf("warnings %v", w)
	}
	want := "diff --git a/bin.dat b/bin.dat\n" +
		"Binary files a/bin.dat and b/bin.dat differ\n" +
		"diff --git a/del.txt b/del.txt\n" +
		"deleted file mode 100644\n" +
		"--- a/del.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-gone\n" +
		"diff --git a/empty.txt b/empty.txt\n" +
		"new file mode 100644\n" +
		"diff --git a/mod.txt b/mod.txt\n" +
		"--- a/mod.txt\n+++ b/mod.txt\n@@ -1,3 +1,3 @@\n a\n-B\n+b\n c\n" +
		"diff --git a/new.txt b/new.txt\n" +
		"new file mode 100644\n" +
		"--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+x\n+y\n" +
		"diff --git a/nonl.txt b/nonl.txt\n" +
		"--- a/nonl.txt\n+++ b/nonl.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+two\n\\ No newline at end of file\n" +
		"diff --git a/sub/deep.txt b/sub/deep.txt\n" +
		"--- a/sub/deep.txt\n+++ b/sub/deep.txt\n@@ -1 +1 @@\n-deep1\n+deep2\n"
	if res["diff"] != want {
		t.Fatalf("fallback diff\n%s\nwant\n%s", res["diff"], want)
	}

	// Filters.
	res = gitDiffT(t, r, DiffOptions{Paths: []string{"sub", "new.txt", "nothing/here.txt"}, Unstaged: true, ContextLines: 3, Originals: orig})
	gitWantFiles(t, res, "new.txt:added", "sub/deep.txt:modified")
	// Filter validation still applies.
	_, err := Diff(t.Context(), r, DiffOptions{Paths: []string{"../x"}, Unstaged: true, MaxBytes: 100, Originals: orig})
	wstest.Code(t, err, "PATH_OUTSIDE_WORKSPACE")
	// Staged only: the fallback has no index, it shows the same changes.
	res = gitDiffT(t, r, DiffOptions{Staged: true, ContextLines: 3, Originals: orig})
	if len(res["files"].([]DiffFile)) != 7 {
		t.Fatalf("staged fallback %v", gitFileList(res))
	}
	// Both flags false: empty.
	res = gitDiffT(t, r, DiffOptions{ContextLines: 3, Originals: orig})
	if res["diff"] != "" || len(res["files"].([]DiffFile)) != 0 {
		t.Fatalf("%v", res)
	}
	// Nothing recorded: empty, with the warning.
	res = gitDiffT(t, r, DiffOptions{Unstaged: true, ContextLines: 3})
	if res["diff"] != "" || res["warnings"].([]string)[0] != "non-git diff fallback" {
		t.Fatalf("%v", res)
	}
	// Truncation applies.
	res = gitDiffT(t, r, DiffOptions{Unstaged: true, ContextLines: 3, MaxBytes: 100, Originals: orig})
	if res["truncated"] != true || res["truncated_by"] != "bytes" || len(res["files"].([]DiffFile)) != 7 {
		t.Fatalf("%v", res)
	}
	// Context 0.
	res = gitDiffT(t, r, DiffOptions{Paths: []string{"mod.txt"}, Unstaged: true, ContextLines: 0, Originals: orig})
	if !strings.HasSuffix(res["diff"].(string), "@@ -2 +2 @@\n-B\n+b\n") {
		t.Fatalf("%s", res["diff"])
	}
}

func TestGitDiffFallbackExecutableAndLarge(t *testing.T) {
	dir := t.TempDir()
	wstest.Write(t, dir, map[string]string{"run.sh": "echo\n"})
	if err := os.Chmod(filepath.Join(dir, "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := wstest.Open(t, dir, workspace.Open)
	res := gitDiffT(t, r, DiffOptions{Unstaged: true, ContextLines: 3, Originals: map[string]*string{"run.sh": nil}})
	if !strings.Contains(res["diff"].(string), "new file mode 100755\n") {
		t.Fatalf("%s", res["diff"])
	}
}

func TestGitDiffFallbackLargeFiles(t *testing.T) {
	wstest.Set(t, &fallbackMaxFile, 10)
	dir := t.TempDir()
	wstest.Write(t, dir, map[string]string{"same.txt": "0123456789abcdef\n", "samesize.txt": "0123456789abcdef\n", "grown.txt": "0123456789abcdef\n"})
	r := wstest.Open(t, dir, workspace.Open)
	res := gitDiffT(t, r, DiffOptions{Unstaged: true, ContextLines: 3, Originals: map[string]*string{
		"same.txt": gitStr("0123456789abcdef\n"), "samesize.txt": gitStr("0123456789ABCDEF\n"), "grown.txt": gitStr("short\n")}})
	gitWantFiles(t, res, "grown.txt:modified:bin", "samesize.txt:modified:bin")
	if !strings.Contains(res["diff"].(string), "Binary files a/grown.txt and b/grown.txt differ\n") {
		t.Fatalf("%s", res["diff"])
	}
}

// TestGitDiffHunksProperty: on random inputs the hunks rebuild the new
// text from the old one, and the edit script is minimal.
func TestGitDiffHunksProperty(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	gen := func() []string {
		n := rng.Intn(30)
		out := make([]string, n)
		for i := range out {
			out[i] = string(rune('a'+rng.Intn(4))) + "\n"
		}
		if n > 0 && rng.Intn(4) == 0 {
			out[n-1] = strings.TrimSuffix(out[n-1], "\n")
		}
		return out
	}
	for iter := 0; iter < 3000; iter++ {
		a, b := gen(), gen()
		ctx := rng.Intn(4)
		h := unifiedHunks(a, b, ctx)
		got, changes := gitApplyHunks(t, a, h)
		if strings.Join(got, "") != strings.Join(b, "") {
			t.Fatalf("a=%q b=%q ctx=%d\nhunks:\n%s\nrebuilt %q", a, b, ctx, h, got)
		}
		if want := len(a) + len(b) - 2*gitLCS(a, b); changes != want {
			t.Fatalf("a=%q b=%q: %d changed lines, minimal %d\n%s", a, b, changes, want, h)
		}
	}
}

func gitLCS(a, b []string) int {
	dp := make([][]int, len(a)+1)
	for i := range dp {
		dp[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				dp[i][j] = dp[i+1][j+1] + 1
			} else {
				dp[i][j] = max(dp[i+1][j], dp[i][j+1])
			}
		}
	}
	return dp[0][0]
}

var gitHunkHeader = regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@$`)

// gitApplyHunks applies unified hunks to a; it returns the result and the
// number of -/+ lines.
func gitApplyHunks(t *testing.T, a []string, hunks string) ([]string, int) {
	t.Helper()
	var out []string
	pos, changes := 0, 0
	lines := strings.Split(hunks, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for i := 0; i < len(lines); {
		m := gitHunkHeader.FindStringSubmatch(lines[i])
		if m == nil {
			t.Fatalf("bad hunk header %q in\n%s", lines[i], hunks)
		}
		start, _ := strconv.Atoi(m[1])
		alen := 1
		if m[2] != "" {
			alen, _ = strconv.Atoi(m[2])
		}
		if alen > 0 {
			start-- // 1-based
		}
		for pos < start {
			out = append(out, a[pos])
			pos++
		}
		i++
		seenA := 0
		for i < len(lines) && !strings.HasPrefix(lines[i], "@@") {
			l := lines[i]
			body := l[1:] + "\n"
			if i+1 < len(lines) && lines[i+1] == `\ No newline at end of file` {
				body = l[1:]
			}
			switch l[0] {
			case ' ':
				if a[pos] != body {
					t.Fatalf("context %q != %q", body, a[pos])
				}
				out = append(out, body)
				pos++
				seenA++
			case '-':
				if a[pos] != body {
					t.Fatalf("deleted %q != %q", body, a[pos])
				}
				pos++
				seenA++
				changes++
			case '+':
				out = append(out, body)
				changes++
			case '\\':
			default:
				t.Fatalf("bad hunk line %q", l)
			}
			i++
		}
		if seenA != alen {
			t.Fatalf("hunk length %d, header %d:\n%s", seenA, alen, hunks)
		}
	}
	out = append(out, a[pos:]...)
	return out, changes
}

// TestGitDiffHunksLikeGit compares with git diff --no-index where the
// diff is unambiguous.
func TestGitDiffHunksLikeGit(t *testing.T) {
	dir := t.TempDir()
	var a, b []string
	for i := 1; i <= 40; i++ {
		a = append(a, fmt.Sprintf("line %d\n", i))
	}
	b = append(b, a[:5]...)
	b = append(b, "inserted\n")
	b = append(b, a[5:12]...)
	b = append(b, a[13:30]...)
	b = append(b, "changed 31\n")
	b = append(b, a[31:]...)
	b = append(b, "tail")
	wstest.Write(t, dir, map[string]string{"a": strings.Join(a, ""), "b": strings.Join(b, "")})
	for _, ctx := range []int{0, 1, 3, 10} {
		cmd := testkit.GitCmd(dir, "diff", "--no-index", "--no-color", "-U"+strconv.Itoa(ctx), "a", "b")
		out, _ := cmd.Output()
		s := string(out)
		s = s[strings.Index(s, "@@"):]
		// The fallback writes no function context after the range.
		s = regexp.MustCompile(`(?m)^(@@ [^@]* @@).*$`).ReplaceAllString(s, "$1")
		if got := unifiedHunks(a, b, ctx); got != s {
			t.Fatalf("context %d:\n%s\ngit:\n%s", ctx, got, s)
		}
	}
}

func TestGitDiffMyersCap(t *testing.T) {
	// Beyond the trace bound the middle is replaced wholesale: still correct.
	n := 3000
	a, b := make([]string, n), make([]string, n)
	for i := range a {
		a[i] = fmt.Sprintf("a%d\n", i)
		b[i] = fmt.Sprintf("b%d\n", i)
	}
	got, _ := gitApplyHunks(t, a, unifiedHunks(a, b, 3))
	if strings.Join(got, "") != strings.Join(b, "") {
		t.Fatal("wholesale replacement does not rebuild the text")
	}
}
