package orchestrator

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/testkit"
)

// waitPool waits until o's repository has a warm worktree, complete and
// free (its name is not locked), and returns it.
func waitPool(tb testing.TB, o *Orchestrator) pooled {
	tb.Helper()
	dir, err := o.wt.Dir(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	var w pooled
	testkit.WaitFor(tb, 30*time.Second, "a warm worktree under "+dir, func() bool {
		for _, name := range warmIn(dir) {
			if _, err := os.Stat(filepath.Join(dir, locksDir, strings.TrimPrefix(name, warmPrefix))); err == nil {
				continue // still being named: its fill holds its id
			}
			w = pooled{id: strings.TrimPrefix(name, warmPrefix), path: filepath.Join(dir, name), dir: dir}
			return true
		}
		return false
	})
	return w
}

// Create claims the warm worktree (the task takes its id; the worktree is
// renamed to it), and the pool is refilled.
func TestPoolClaim(t *testing.T) {
	repo := testkit.Repo(t)
	f := newFixture(t, repo)
	w := waitPool(t, f.o)
	head := testkit.Git(t, repo, "rev-parse", "HEAD")
	got := testkit.Git(t, w.path, "status", "--porcelain=v2", "--branch", "--ignored")
	if commit, ignored := cleanDetachedAt(got); commit != head || ignored {
		t.Fatalf("warm status %q", got)
	}
	task := f.create(t, CreateInput{Agent: "COMMAND", Description: "pooled", Config: shell(`echo hi > hi.txt && git add hi.txt && ` + agentCommit + ` hi`)})
	if task.ID != w.id || task.WorktreePath != filepath.Join(w.dir, w.id) || task.BaseSHA != head {
		t.Fatalf("task %+v did not claim %+v", task, w)
	}
	if _, err := os.Stat(w.path); !os.IsNotExist(err) {
		t.Fatalf("the claimed warm worktree is still named warm: %v", err)
	}
	task = f.wait(t, task.ID)
	if task.Status != StatusCompleted || testkit.Git(t, repo, "log", "-1", "--format=%s", task.Branch) != "hi" {
		t.Fatalf("task %+v", task)
	}
	if got := testkit.Git(t, task.WorktreePath, "symbolic-ref", "HEAD"); got != "refs/heads/"+task.Branch {
		t.Fatalf("worktree HEAD %q", got)
	}
	if next := waitPool(t, f.o); next.id == w.id {
		t.Fatalf("pool not refilled: %+v", next)
	}
}

// When HEAD moved since the worktree was made warm, Create brings it
// forward (the task sees the new commit), rather than checking out a
// fresh one; a warm worktree someone wrote into is removed, not claimed.
func TestPoolBringsWarmForward(t *testing.T) {
	repo := testkit.Repo(t)
	f := newFixture(t, repo)
	warm := waitPool(t, f.o)
	os.WriteFile(filepath.Join(repo, "new.txt"), []byte("new\n"), 0o644)
	testkit.Git(t, repo, "add", "new.txt")
	testkit.Git(t, repo, "commit", "-qm", "moved")
	head := testkit.Git(t, repo, "rev-parse", "HEAD")
	task := f.create(t, CreateInput{Agent: "COMMAND", Description: "forward", Config: shell(`cat new.txt`)})
	if task.ID != warm.id || task.BaseSHA != head {
		t.Fatalf("task %+v did not claim %+v at %s", task, warm, head)
	}
	if task = f.wait(t, task.ID); task.Status != StatusCompleted {
		t.Fatalf("task %+v", task)
	}

	dirty := waitPool(t, f.o)
	os.WriteFile(filepath.Join(dirty.path, "junk.txt"), []byte("junk\n"), 0o644)
	task = f.create(t, CreateInput{Agent: "COMMAND", Description: "clean please", Config: shell(`test ! -e junk.txt`)})
	if task.ID == dirty.id {
		t.Fatal("claimed a dirty warm worktree")
	}
	if task = f.wait(t, task.ID); task.Status != StatusCompleted {
		t.Fatalf("task %+v", task)
	}
	testkit.WaitFor(t, 10*time.Second, "the dirty warm worktree to be removed", func() bool {
		_, err1 := os.Stat(dirty.path)
		_, err2 := os.Stat(filepath.Join(dirty.dir, dirty.id))
		return os.IsNotExist(err1) && os.IsNotExist(err2)
	})
	if wl := testkit.Git(t, repo, "worktree", "list", "--porcelain"); strings.Contains(wl, dirty.id) {
		t.Fatalf("dirty worktree still registered:\n%s", wl)
	}
}

// Close leaves the warm worktree for the next run, which claims it, and
// nothing else: a fill it stops half-way is removed before it returns.
func TestPoolOutlivesTheProcess(t *testing.T) {
	repo := testkit.Repo(t)
	f := newFixture(t, repo)
	w := waitPool(t, f.o)
	f.o.Close()
	if _, err := os.Stat(w.path); err != nil {
		t.Fatalf("warm worktree gone with its process: %v", err)
	}
	g := newFixture(t, repo, func(o *Options) { o.NoPool = false })
	task := g.create(t, CreateInput{Agent: "COMMAND", Description: "next run", Config: shell(`true`)})
	if task.ID != w.id {
		t.Fatalf("the next run checked out %s instead of claiming %s", task.ID, w.id)
	}
	g.wait(t, task.ID)
	g.o.Close() // may stop a fill half-way

	h := newFixture(t, repo, func(o *Options) { o.NoPool = true }) // no fill of its own in flight
	for _, e := range readDir(t, wtDirOf(t, h)) {
		if name := e.Name(); name != task.ID && name != locksDir && !strings.HasPrefix(name, warmPrefix) {
			t.Errorf("left after Close: %s", name)
		}
	}
	if _, err := h.o.Sweep(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := h.o.Create(context.Background(), CreateInput{Agent: "COMMAND", Description: "after close", Config: shell(`true`)}); err != nil {
		t.Fatal(err)
	}
}

// A merged task's worktree becomes the warm one: the next task starts
// in it, at the merge (what the agent committed and what it left
// uncommitted), with nothing else the agent left behind (ignored files),
// and its index agrees with its files.
func TestMergedWorktreeIsRecycled(t *testing.T) {
	repo := testkit.Repo(t)
	os.WriteFile(filepath.Join(repo, ".gitignore"), []byte("*.log\n"), 0o644)
	testkit.Git(t, repo, "add", ".gitignore")
	testkit.Git(t, repo, "commit", "-qm", "ignore logs")
	f := newFixture(t, repo, func(o *Options) { o.NoPool = false })
	task := f.wait(t, f.create(t, CreateInput{Agent: "COMMAND", Description: "work",
		Config: shell(`echo c > c.txt && git add c.txt && ` + agentCommit + ` c && echo done > done.txt && echo noise > build.log`)}).ID)
	if _, err := f.o.Merge(context.Background(), task.ID, MergeInput{}); err != nil {
		t.Fatal(err)
	}
	dir := wtDirOf(t, f)
	var recycled bool
	for _, name := range warmIn(dir) {
		if _, err := os.Stat(filepath.Join(dir, name, "done.txt")); err == nil {
			recycled = true
			// Brought to the merge from the merge's own snapshot of it,
			// not by checking every file out again.
			if got := testkit.Git(t, filepath.Join(dir, name), "reflog", "-1", "--format=%gs", "HEAD"); got != "sudocode: warm at the merge" {
				t.Errorf("the warm worktree's HEAD was last moved by %q", got)
			}
		}
	}
	if !recycled {
		t.Fatalf("no warm worktree holds the merge; warm: %v", warmIn(dir))
	}
	next := f.wait(t, f.create(t, CreateInput{Agent: "COMMAND", Description: "next",
		Config: shell(`test -e done.txt && test -e c.txt && test ! -e build.log && test -z "$(git status --porcelain --ignored)"`)}).ID)
	if next.Status != StatusCompleted {
		t.Fatalf("the next task did not start from the merge alone: %+v", next)
	}
}

func readDir(t *testing.T, dir string) []os.DirEntry {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return ents
}

// A worktree whose .git file the agent replaced (here by a link to a file
// of the same content) is not made warm: its registration is rewritten
// only through a file git made. (gitx refuses to run git in it at all, so
// a merge fails before; recycling does not count on that.)
func TestTamperedWorktreeIsNotRecycled(t *testing.T) {
	repo := testkit.Repo(t)
	f := newFixture(t, repo, func(o *Options) { o.NoPool = true })
	task := f.wait(t, f.create(t, CreateInput{Agent: "COMMAND", Description: "work", Config: shell(`echo done > done.txt`)}).ID)
	dotGit := filepath.Join(task.WorktreePath, ".git")
	b, err := os.ReadFile(dotGit)
	if err != nil {
		t.Fatal(err)
	}
	elsewhere := filepath.Join(t.TempDir(), "dotgit")
	os.WriteFile(elsewhere, b, 0o644)
	os.Remove(dotGit)
	if err := os.Symlink(elsewhere, dotGit); err != nil {
		t.Fatal(err)
	}
	f.o.pool.disabled = false
	if f.o.recycle(context.Background(), task.WorktreePath, "", snapshotCommit{}) {
		t.Fatal("recycled a worktree whose .git is a link")
	}
	if _, err := os.Lstat(task.WorktreePath); err != nil {
		t.Fatalf("the worktree moved: %v", err)
	}
	if w := warmIn(wtDirOf(t, f)); len(w) != 0 {
		t.Fatalf("warm worktrees %v", w)
	}
}
