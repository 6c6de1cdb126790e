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

// waitPool waits until o's pool holds a ready worktree and returns it.
func waitPool(tb testing.TB, o *Orchestrator) pooled {
	tb.Helper()
	var w *pooled
	testkit.WaitFor(tb, 30*time.Second, "the pool to be filled", func() bool {
		o.pool.mu.Lock()
		defer o.pool.mu.Unlock()
		w = o.pool.ready
		return w != nil
	})
	return *w
}

// Create claims the pooled worktree (the task takes its id and path),
// and the pool is refilled at the new HEAD.
func TestPoolClaim(t *testing.T) {
	repo := testkit.Repo(t)
	f := newFixture(t, repo)
	w := waitPool(t, f.o)
	if !strings.HasPrefix(w.path, wtDirOf(t, f)+string(filepath.Separator)) || filepath.Base(w.path) != w.id {
		t.Fatalf("pooled %+v", w)
	}
	if got := testkit.Git(t, w.path, "status", "--porcelain=v2", "--branch"); !pooledIntact(got, w.head) {
		t.Fatalf("pooled status %q", got)
	}
	task := f.create(t, CreateInput{Tool: "COMMAND", Description: "pooled", Config: shell(`echo hi > hi.txt && git add hi.txt && ` + agentCommit + ` hi`)})
	if task.ID != w.id || task.WorktreePath != w.path || task.BaseSHA != w.head {
		t.Fatalf("task %+v did not claim %+v", task, w)
	}
	task = f.wait(t, task.ID)
	if task.Status != StatusCompleted || testkit.Git(t, repo, "log", "-1", "--format=%s", task.Branch) != "hi" {
		t.Fatalf("task %+v", task)
	}
	if got := testkit.Git(t, task.WorktreePath, "symbolic-ref", "HEAD"); got != "refs/heads/"+task.Branch {
		t.Fatalf("worktree HEAD %q", got)
	}
	next := waitPool(t, f.o)
	if next.id == w.id || next.path == w.path {
		t.Fatalf("pool not refilled: %+v", next)
	}
}

// When HEAD moved since the pool was filled, Create falls back to a fresh
// worktree at the new HEAD and the stale one is removed.
func TestPoolFallbackWhenHeadMoved(t *testing.T) {
	repo := testkit.Repo(t)
	f := newFixture(t, repo)
	stale := waitPool(t, f.o)
	os.WriteFile(filepath.Join(repo, "new.txt"), []byte("new\n"), 0o644)
	testkit.Git(t, repo, "add", "new.txt")
	testkit.Git(t, repo, "commit", "-qm", "moved")
	head := testkit.Git(t, repo, "rev-parse", "HEAD")
	task := f.create(t, CreateInput{Tool: "COMMAND", Description: "fresh", Config: shell(`cat new.txt`)})
	if task.ID == stale.id || task.WorktreePath == stale.path || task.BaseSHA != head {
		t.Fatalf("task %+v claimed the stale %+v", task, stale)
	}
	if task = f.wait(t, task.ID); task.Status != StatusCompleted {
		t.Fatalf("task %+v", task)
	}
	next := waitPool(t, f.o)
	if next.head != head {
		t.Fatalf("refilled at %s, HEAD is %s", next.head, head)
	}
	testkit.WaitFor(t, 10*time.Second, "the stale pooled worktree to be removed", func() bool {
		_, err := os.Stat(stale.path)
		return os.IsNotExist(err)
	})
	if wl := testkit.Git(t, repo, "worktree", "list", "--porcelain"); strings.Contains(wl, stale.path) {
		t.Fatalf("stale worktree still registered:\n%s", wl)
	}

	// A pooled worktree someone wrote into is not claimed either.
	dirty := waitPool(t, f.o)
	os.WriteFile(filepath.Join(dirty.path, "junk.txt"), []byte("junk\n"), 0o644)
	task = f.create(t, CreateInput{Tool: "COMMAND", Description: "clean please", Config: shell(`test ! -e junk.txt`)})
	if task.WorktreePath == dirty.path {
		t.Fatal("claimed a dirty pooled worktree")
	}
	if task = f.wait(t, task.ID); task.Status != StatusCompleted {
		t.Fatalf("task %+v", task)
	}
}

// Close removes an unclaimed pooled worktree, and leaves nothing.
func TestPoolClose(t *testing.T) {
	repo := testkit.Repo(t)
	f := newFixture(t, repo)
	w := waitPool(t, f.o)
	f.o.Close()
	if _, err := os.Stat(w.path); !os.IsNotExist(err) {
		t.Fatalf("pooled worktree left: %v", err)
	}
	if wl := testkit.Git(t, repo, "worktree", "list", "--porcelain"); strings.Count(wl, "worktree ") != 1 {
		t.Fatalf("worktrees:\n%s", wl)
	}
	// Closing while a fill runs stops it and leaves nothing either.
	g := newFixture(t, repo)
	g.o.Close()
	if ents, _ := os.ReadDir(wtDirOf(t, g)); len(ents) != 0 {
		t.Fatalf("left: %v", ents)
	}
	if _, err := g.o.Create(context.Background(), CreateInput{Tool: "COMMAND", Description: "after close", Config: shell(`true`)}); err != nil {
		t.Fatal(err)
	}
}
