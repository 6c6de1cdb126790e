package gitinfo

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/testkit"
	"github.com/sudocode/sudocode/internal/workspace"
	"github.com/sudocode/sudocode/internal/workspace/wstest"
)

// render renders each item as a string.
func render[T any](items []T, f func(T) string) []string {
	var out []string
	for _, it := range items {
		out = append(out, f(it))
	}
	return out
}

// wantList compares a rendered list with want (none: nil).
func wantList(t *testing.T, what string, got, want []string) {
	t.Helper()
	if len(want) == 0 {
		want = nil
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s\n got %q\nwant %q", what, got, want)
	}
}

func gitHeadSHA(t *testing.T, dir string) string {
	return testkit.Git(t, dir, "rev-parse", "HEAD")
}

func gitWriteScript(t *testing.T, path, body string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestGitMissingBinary(t *testing.T) {
	repo := testkit.RepoOf(t, map[string]string{"a.txt": "a\n"})
	plain := t.TempDir()
	wstest.Set(t, &gitBinary, filepath.Join(t.TempDir(), "no-such-git"))
	for _, dir := range []string{repo, plain} {
		r := wstest.Open(t, dir, workspace.Open)
		_, err := Status(context.Background(), r, ".", true, 100)
		e := wstest.Code(t, err, "GIT_ERROR")
		if c := workspace.Classify(e); c.Category != workspace.CatRuntime || c.Retryable {
			t.Fatalf("GIT_ERROR category %s retryable %v", c.Category, c.Retryable)
		}
		_, err = Diff(context.Background(), r, DiffOptions{Unstaged: true, ContextLines: 3, MaxBytes: 1000})
		wstest.Code(t, err, "GIT_ERROR")
	}
}

func TestGitMissingFromPath(t *testing.T) {
	// The same through PATH: an empty directory holds no git.
	repo := testkit.RepoOf(t, map[string]string{"a.txt": "a\n"})
	r := wstest.Open(t, repo, workspace.Open)
	t.Setenv("PATH", t.TempDir())
	_, err := Status(context.Background(), r, ".", true, 100)
	wstest.Code(t, err, "GIT_ERROR")
}

func TestGitTimeout(t *testing.T) {
	repo := testkit.RepoOf(t, map[string]string{"a.txt": "a\n"})
	r := wstest.Open(t, repo, workspace.Open)
	// A git that hangs, with a grandchild holding stdout open.
	fake := gitWriteScript(t, filepath.Join(t.TempDir(), "git"), "sleep 30\n")
	wstest.Set(t, &gitBinary, fake)
	wstest.Set(t, &gitTimeout, 300*time.Millisecond)
	wstest.Set(t, &gitWaitDelay, 200*time.Millisecond)
	// The fake git sleeps far past the timeout: a TIMEOUT answer is the
	// timeout's doing, however slow the machine.
	_, err := Status(context.Background(), r, ".", true, 100)
	e := wstest.Code(t, err, "TIMEOUT")
	if c := workspace.Classify(e); !c.Retryable || c.Category != workspace.CatRuntime {
		t.Fatalf("TIMEOUT retryable %v category %s", c.Retryable, c.Category)
	}
	_, err = Diff(context.Background(), r, DiffOptions{Unstaged: true, MaxBytes: 100})
	wstest.Code(t, err, "TIMEOUT")
}

func TestGitDiffBoundedRead(t *testing.T) {
	repo := t.TempDir() // found by its files: the fake git is asked only to diff
	testkit.Git(t, repo, "init", "-q")
	r := wstest.Open(t, repo, workspace.Open)
	// A git whose diff never ends: it must be read only as far as needed.
	fake := gitWriteScript(t, filepath.Join(t.TempDir(), "git"), `case "$*" in
*config*) exit 1 ;;
*--raw*) printf ':100644 100644 0000000 0000000 M\000big.txt\000'
   printf '1\t1\tbig.txt\000' ;;
*--patch*) yes 'diff line diff line diff line' ;;
esac
`)
	wstest.Set(t, &gitBinary, fake)
	start := time.Now()
	res, err := Diff(context.Background(), r, DiffOptions{Unstaged: true, ContextLines: 3, MaxBytes: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > testkit.Scale(5*time.Second) {
		t.Fatalf("bounded read took %s (%s scales this)", d, testkit.SlowEnv)
	}
	if !res.Truncated || res.TruncatedBy == nil || *res.TruncatedBy != "bytes" || res.OutputBytes > 1000 {
		t.Fatalf("result %+v", res)
	}
	if files := res.Files; len(files) != 1 || files[0].Path != "big.txt" || files[0].Status != "modified" {
		t.Fatalf("files %+v", files)
	}
	// By lines: 2000 of them.
	res, err = Diff(context.Background(), r, DiffOptions{Unstaged: true, ContextLines: 3, MaxBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if res.TruncatedBy == nil || *res.TruncatedBy != "lines" || res.OutputLines != 2000 {
		t.Fatalf("lines: %v %v", res.TruncatedBy, res.OutputLines)
	}
}

// TestGitHostileConfig: a repository whose configuration would run
// programs (fsmonitor hook, external diff, textconv, filters, pager,
// hooks) runs none of them under git_status and git_diff.
func TestGitHostileConfig(t *testing.T) {
	repo := testkit.RepoOf(t, map[string]string{"a.txt": "hello\n", "b.txt": "world\n", "c.txt": "third\n", "d.md": "plain\n"})
	bin := t.TempDir()
	markers := t.TempDir()
	script := func(name, body string) string {
		marker := strings.ReplaceAll(name, "/", "-")
		return gitWriteScript(t, filepath.Join(bin, filepath.FromSlash(name)), "touch '"+markers+"/"+marker+"'\n"+body)
	}
	// Staged and unstaged changes of the same size (git must hash them).
	wstest.Write(t, repo, map[string]string{"b.txt": "WORLD\n"})
	testkit.Git(t, repo, "add", "b.txt")
	wstest.Write(t, repo, map[string]string{"a.txt": "HELLO\n", "c.txt": "THIRD\n", "d.md": "PLAIN\n", ".gitattributes": "*.txt diff=evil filter=evil\n"})
	// Same sizes as before: a modification time unlike the one the index
	// holds for them makes git read the files, however fast they were
	// rewritten.
	long := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, name := range []string{"a.txt", "c.txt", "d.md"} {
		if err := os.Chtimes(filepath.Join(repo, name), long, long); err != nil {
			t.Fatal(err)
		}
	}

	hooks := filepath.Join(bin, "hooks")
	if err := os.MkdirAll(hooks, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{"post-index-change", "pre-commit", "post-checkout", "reference-transaction", "fsmonitor-watchman"} {
		script("hooks/"+h, "")
	}
	for _, kv := range [][2]string{
		{"core.fsmonitor", script("fsmonitor", "exit 0\n")},
		{"diff.external", script("external", "exit 0\n")},
		{"core.pager", script("pager", "cat\n")},
		{"pager.status", script("pager-status", "cat\n")},
		{"pager.diff", script("pager-diff", "cat\n")},
		{"diff.evil.textconv", script("textconv", "cat \"$1\"\n")},
		{"diff.evil.command", script("diffcommand", "exit 0\n")},
		{"filter.evil.clean", script("clean", "cat\n")},
		{"filter.evil.smudge", script("smudge", "cat\n")},
		{"filter.evil.required", "true"},
		{"core.hooksPath", hooks},
		{"status.submoduleSummary", "true"},
	} {
		testkit.Git(t, repo, "config", kv[0], kv[1])
	}
	// Control: the same repository does run them under a plain git.
	plain := func(args ...string) { _ = testkit.GitCmd(repo, args...).Run() }
	plain("--no-optional-locks", "status", "--porcelain")
	plain("--no-optional-locks", "diff")
	for _, m := range []string{"fsmonitor", "clean", "external", "diffcommand"} {
		if _, err := os.Stat(filepath.Join(markers, m)); err != nil {
			t.Fatalf("control: plain git did not run %s, the test proves nothing", m)
		}
	}
	os.RemoveAll(markers)
	if err := os.MkdirAll(markers, 0o755); err != nil {
		t.Fatal(err)
	}

	r := wstest.Open(t, repo, workspace.Open)
	st, err := Status(context.Background(), r, ".", true, 100)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range st.Entries {
		got = append(got, e.Path+":"+e.IndexStatus+e.WorktreeStatus)
	}
	if strings.Join(got, ",") != "a.txt: M,b.txt:M ,c.txt: M,d.md: M,.gitattributes:??" {
		t.Fatalf("status entries %v", got)
	}
	d, err := Diff(context.Background(), r, DiffOptions{Staged: true, Unstaged: true, ContextLines: 3, MaxBytes: 100000})
	if err != nil {
		t.Fatal(err)
	}
	diff := d.Diff
	for _, want := range []string{"-hello\n+HELLO\n", "-world\n+WORLD\n", "-third\n+THIRD\n", "-plain\n+PLAIN\n"} {
		if !strings.Contains(diff, want) {
			t.Fatalf("diff lacks %q:\n%s", want, diff)
		}
	}
	if !(strings.Index(diff, "a/a.txt") < strings.Index(diff, "a/c.txt") && strings.Index(diff, "a/c.txt") < strings.Index(diff, "a/b.txt")) {
		t.Fatalf("unstaged part must precede the staged one:\n%s", diff)
	}
	ents, _ := os.ReadDir(markers)
	if len(ents) != 0 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Fatalf("hostile configuration ran: %v", names)
	}
}

func TestGitRelPath(t *testing.T) {
	g := &gitRepo{prefix: "sub/dir/"}
	for in, want := range map[string]string{
		"sub/dir/a.txt": "a.txt",
		"sub/b.txt":     "../b.txt",
		"c.txt":         "../../c.txt",
		"other/x/y":     "../../other/x/y",
	} {
		if got := g.rel(in); got != want {
			t.Errorf("rel(%q) = %q, want %q", in, got, want)
		}
	}
	if got := (&gitRepo{}).rel("a/b"); got != "a/b" {
		t.Errorf("top-level rel %q", got)
	}
}
