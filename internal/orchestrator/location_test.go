package orchestrator

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/testkit"
)

// Task worktrees live outside the repository's work tree and git
// directory (Claude Code refuses every write below .git): by default in
// the user's state directory, in a directory of the repository's own;
// the user's git status never shows them, and the pool and the sweep
// follow them there.
func TestWorktreesOutsideRepository(t *testing.T) {
	repo := testkit.Repo(t)
	f := newFixture(t, repo)
	pool := waitPool(t, f.o)
	task := f.wait(t, f.create(t, CreateInput{Agent: "COMMAND", Description: "write", Config: shell(`echo x > new.txt`)}).ID)
	common := filepath.Join(repo, ".git")
	top := testkit.Git(t, repo, "rev-parse", "--show-toplevel")
	key := filepath.Base(top) + "-"
	want := filepath.Join(os.Getenv("XDG_STATE_HOME"), "sudocode", "worktrees")
	for _, p := range []string{task.WorktreePath, pool.path} {
		if !strings.HasPrefix(p, want+string(filepath.Separator)+key) {
			t.Errorf("worktree %s is not under %s/%s*", p, want, key)
		}
		if within(resolved(p), resolved(repo)) || within(resolved(p), resolved(common)) {
			t.Errorf("worktree %s is inside the repository", p)
		}
	}
	if st := testkit.Git(t, repo, "status", "--porcelain", "--ignored"); st != "" {
		t.Errorf("the user's git status shows: %s", st)
	}
	// A leftover in the new place is swept.
	dir, err := f.o.wt.Dir(context.Background())
	if err != nil || filepath.Dir(task.WorktreePath) != dir {
		t.Fatalf("Dir() = %s, %v; task at %s", dir, err, task.WorktreePath)
	}
	stray := filepath.Join(dir, "stray123")
	os.MkdirAll(stray, 0o755)
	removed, err := f.o.Sweep(context.Background())
	if err != nil || len(removed) != 1 || removed[0] != stray {
		t.Fatalf("sweep removed %v, %v", removed, err)
	}
}

// The root comes from Options.Worktrees (the --worktrees flag or
// SUDOCODE_WORKTREES), else the project's .sudocode/agent.json, which may
// only name a place in the user's state directory; a root inside the
// repository is refused with a reason.
func TestWorktreeRootConfigured(t *testing.T) {
	repo := testkit.Repo(t)
	root := t.TempDir()
	f := newFixture(t, repo, noPool, func(o *Options) { o.Worktrees = root })
	task := f.wait(t, f.create(t, CreateInput{Agent: "COMMAND", Description: "a", Config: shell(`true`)}).ID)
	if filepath.Dir(filepath.Dir(task.WorktreePath)) != root {
		t.Errorf("worktree %s not under %s", task.WorktreePath, root)
	}
	inRepo := newFixture(t, repo, noPool, func(o *Options) { o.Worktrees = filepath.Join(repo, "wt") })
	if _, err := inRepo.o.Create(context.Background(), CreateInput{Agent: "COMMAND", Description: "c", Config: shell(`true`)}); fault.CodeOf(err) != fault.Invalid || !strings.Contains(err.Error(), "inside") {
		t.Errorf("--worktrees inside the repository: %v", err)
	}

	repo2 := testkit.Repo(t)
	want := filepath.Join(os.Getenv("XDG_STATE_HOME"), "wt-of-repo2")
	writeSettings(t, repo2, `{"worktrees": "`+want+`"}`)
	f2 := newFixture(t, repo2, noPool)
	task2 := f2.wait(t, f2.create(t, CreateInput{Agent: "COMMAND", Description: "b", Config: shell(`true`)}).ID)
	if filepath.Dir(filepath.Dir(task2.WorktreePath)) != want {
		t.Errorf("worktree %s not under %s", task2.WorktreePath, want)
	}

	trustDir := filepath.Join(os.Getenv("XDG_STATE_HOME"), "sudocode", "trust")
	for _, bad := range []string{`"wt"`, `".git/wt"`, `"../wt-of-repo2"`, `"` + os.Getenv("XDG_STATE_HOME") + `"`, `"` + trustDir + `"`} {
		writeSettings(t, repo2, `{"worktrees": `+bad+`}`)
		_, err := f2.o.Create(context.Background(), CreateInput{Agent: "COMMAND", Description: "c", Config: shell(`true`)})
		if fault.CodeOf(err) != fault.Invalid || !strings.Contains(err.Error(), "state directory") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

// wtDirOf is the directory f's orchestrator puts worktrees in.
func wtDirOf(t *testing.T, f *fixture) string {
	t.Helper()
	dir, err := f.o.wt.Dir(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return dir
}
