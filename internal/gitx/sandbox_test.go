package gitx

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/sandbox"
	"github.com/sudocode/sudocode/internal/testkit"
)

// A clean filter is a program the repository names (by .gitattributes or
// .git/info/attributes, whose driver names gitx cannot know without
// reading the configuration): it may run, but under the sandbox, which
// lets it write the repository and nothing else.
func TestFilterConfinedToRepository(t *testing.T) {
	for _, where := range []string{".gitattributes", ".git/info/attributes"} {
		t.Run(where, func(t *testing.T) {
			repo := newRepo(t)
			outside, err := os.MkdirTemp("", "sudocode-gitx-outside-")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(outside) })
			escaped := filepath.Join(outside, "escaped")
			script, ran := trap(t, repo, "clean", "touch '"+escaped+"'\ncat\n")
			testkit.Git(t, repo, "config", "filter.f.clean", script)
			write(t, filepath.Join(repo, filepath.FromSlash(where)), "*.txt filter=f\n")
			write(t, filepath.Join(repo, "a.txt"), "changed\n")
			control(t, repo, escaped, "diff", "--", "a.txt")
			os.Remove(ran)
			for _, args := range [][]string{{"diff"}, {"status", "--porcelain"}, {"add", "-A"}} {
				if _, err := gitOut(t, Options{Dir: repo, Locks: args[0] == "add"}, args...); err != nil {
					t.Fatal(err)
				}
				if exists(escaped) {
					t.Fatalf("git %s: the filter wrote outside the repository", args[0])
				}
			}
			if !exists(ran) {
				t.Fatal("the filter never ran: the test proves nothing")
			}
		})
	}
}

// A git killed at its deadline takes what it started with it.
func TestTimeoutEndsDescendants(t *testing.T) {
	repo := newRepo(t)
	tag := fmt.Sprintf("4242.%d", time.Now().UnixNano()%1e9) // unique to this run
	script, _ := trap(t, repo, "slow", "sleep "+tag+" &\nsleep "+tag+"\n")
	testkit.Git(t, repo, "config", "filter.slow.clean", script)
	write(t, filepath.Join(repo, ".gitattributes"), "*.txt filter=slow\n")
	write(t, filepath.Join(repo, "a.txt"), "changed\n")
	start := time.Now()
	_, err := gitOut(t, Options{Dir: repo, Timeout: time.Second}, "diff")
	var te *TimeoutError
	if !errors.As(err, &te) {
		t.Fatalf("error %v, want a timeout", err)
	}
	if d := time.Since(start); d > testkit.Scale(5*time.Second) {
		t.Fatalf("the timeout took %s (%s scales this)", d, testkit.SlowEnv)
	}
	if !testkit.Eventually(3*time.Second, func() bool { return procsWith("sleep "+tag) == 0 }) {
		t.Fatalf("%d processes of the killed git are still running", procsWith("sleep "+tag))
	}
}

func TestCancelled(t *testing.T) {
	repo := newRepo(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Output(ctx, Options{Dir: repo}, 100, "status"); !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v", err)
	}
}

func TestNotFound(t *testing.T) {
	_, err := Output(context.Background(), Options{Dir: t.TempDir(), Binary: filepath.Join(t.TempDir(), "git")}, 100, "status")
	var nf *NotFoundError
	if !errors.As(err, &nf) {
		t.Fatalf("error %v", err)
	}
}

func TestNotARepository(t *testing.T) {
	_, err := Output(context.Background(), Options{Dir: t.TempDir()}, 100, "status")
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Args[0] != "status" || !strings.Contains(ee.Stderr, "not a git repository") {
		t.Fatalf("error %v", err)
	}
}

// procsWith counts the processes whose command line contains s.
func procsWith(s string) int {
	ents, _ := os.ReadDir("/proc")
	n := 0
	for _, e := range ents {
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && strings.Contains(strings.ReplaceAll(string(b), "\x00", " "), s) {
			n++
		}
	}
	return n
}

// A deadline that comes while the sandbox is still starting git is a
// timeout too, not a git that could not run: callers tell the two apart
// (a listing stops at a timeout, and only warns when git is broken).
func TestDeadlineDuringSandboxStartIsATimeout(t *testing.T) {
	repo := newRepo(t)
	_, err := gitOut(t, Options{Dir: repo, Timeout: time.Nanosecond}, "status")
	var te *TimeoutError
	if !errors.As(err, &te) {
		t.Fatalf("error %v, want a timeout", err)
	}
}

// Sandboxed reads of one repository share a box built once, and so do
// calls that also write one directory the caller names (the worktree
// directory of every task); a call that writes a temporary index outside
// the repository gets a box of its own, not kept.
func TestSandboxedGitKeepsItsBoxWarm(t *testing.T) {
	if reason := sandbox.BoxUnavailable(); reason != "" {
		testkit.Missing(t, "the sealed box: %s", reason)
	}
	repo := newRepo(t)
	before := warmBoxes.Built()
	for range 3 {
		if _, err := gitOut(t, Options{Dir: repo}, "status", "--porcelain"); err != nil {
			t.Fatal(err)
		}
	}
	if built := warmBoxes.Built() - before; built != 1 {
		t.Fatalf("three statuses built %d boxes", built)
	}
	worktrees := t.TempDir()
	for range 2 {
		if _, err := gitOut(t, Options{Dir: repo, Writable: []string{worktrees}}, "status", "--porcelain"); err != nil {
			t.Fatal(err)
		}
	}
	if built := warmBoxes.Built() - before; built != 2 {
		t.Fatalf("two calls writing one directory built %d boxes beside the reads' one, want 1", built-1)
	}
	before++
	index := filepath.Join(t.TempDir(), "index")
	if _, err := gitOut(t, Options{Dir: repo, Env: []string{"GIT_INDEX_FILE=" + index}, Locks: true}, "read-tree", "HEAD"); err != nil {
		t.Fatal(err)
	}
	if built := warmBoxes.Built() - before; built != 1 {
		t.Fatalf("a temporary index's read-tree went through a kept box (%d built)", built)
	}
	if _, err := os.Stat(index); err != nil {
		t.Fatalf("the temporary index: %v", err)
	}
	// One in the repository's git directory, which every call may write
	// anyway, goes through the kept box.
	reused := warmBoxes.Reused()
	inGitDir := filepath.Join(resolvedPath(t, repo), ".git", "sudocode-index-test", "index")
	os.MkdirAll(filepath.Dir(inGitDir), 0o755)
	if _, err := gitOut(t, Options{Dir: repo, Env: []string{"GIT_INDEX_FILE=" + inGitDir}, Locks: true}, "read-tree", "HEAD"); err != nil {
		t.Fatal(err)
	}
	if built, again := warmBoxes.Built()-before, warmBoxes.Reused()-reused; built != 1 || again != 1 {
		t.Fatalf("a temporary index in the git directory did not go through the kept box (%d built, %d reused)", built, again)
	}
	if _, err := os.Stat(inGitDir); err != nil {
		t.Fatalf("the temporary index in the git directory: %v", err)
	}
}

func resolvedPath(t *testing.T, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Prewarm builds the repository's box ahead of its first call, which then
// runs in it.
func TestPrewarmBuildsTheBoxAhead(t *testing.T) {
	if reason := sandbox.BoxUnavailable(); reason != "" {
		testkit.Missing(t, "the sealed box: %s", reason)
	}
	repo := newRepo(t)
	built, reused := warmBoxes.Built(), warmBoxes.Reused()
	if !Prewarm(context.Background(), repo) {
		t.Fatal("no box prepared")
	}
	if _, err := gitOut(t, Options{Dir: repo}, "status", "--porcelain"); err != nil {
		t.Fatal(err)
	}
	if b, r := warmBoxes.Built()-built, warmBoxes.Reused()-reused; b != 1 || r != 1 {
		t.Fatalf("built %d boxes, reused %d: the call did not run in the prepared box", b, r)
	}
}
