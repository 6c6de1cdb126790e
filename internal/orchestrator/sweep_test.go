package orchestrator

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/testkit"
)

// Sweep removes what no task owns under the worktree directory (a leftover
// pooled worktree, a plain directory), keeps task worktrees and this
// server's pool, touches nothing outside, and forgets vanished worktrees.
func TestSweep(t *testing.T) {
	repo := testkit.Repo(t)
	ctx := context.Background()
	wtDir := filepath.Join(os.Getenv("XDG_STATE_HOME"), "sudocode", "worktrees", repoKey(repoInfo{commonDir: filepath.Join(resolved(repo), ".git")}))
	// A previous server's pool worktree and a half-created directory.
	leftover := filepath.Join(wtDir, "oldpool1")
	testkit.Git(t, repo, "worktree", "add", "-q", "--detach", leftover, "HEAD")
	partial := filepath.Join(wtDir, "partial2")
	os.MkdirAll(filepath.Join(partial, "sub"), 0o755)
	os.WriteFile(filepath.Join(partial, "sub", "f"), []byte("x"), 0o644)
	outside := filepath.Join(repo, "keep.txt")
	os.WriteFile(outside, []byte("mine\n"), 0o644)

	f := newFixture(t, repo)
	pool := waitPool(t, f.o)
	kept := f.wait(t, f.create(t, CreateInput{Agent: "COMMAND", Description: "kept", Config: shell(`true`)}).ID)
	vanished := f.wait(t, f.create(t, CreateInput{Agent: "COMMAND", Description: "vanished", Config: shell(`true`)}).ID)
	os.RemoveAll(vanished.WorktreePath)

	removed, err := f.o.Sweep(ctx)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(removed)
	if want := []string{leftover, partial}; !slices.Equal(removed, want) {
		t.Fatalf("removed %v, want %v", removed, want)
	}
	for _, p := range []string{kept.WorktreePath, outside} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
	}
	if _, err := os.Stat(leftover); !os.IsNotExist(err) {
		t.Fatalf("leftover: %v", err)
	}
	// The pool may have been claimed and refilled meanwhile; what it holds stays.
	if w := waitPool(t, f.o); w.id == pool.id {
		if _, err := os.Stat(pool.path); err != nil {
			t.Fatalf("pooled worktree swept: %v", err)
		}
	}
	wl := testkit.Git(t, repo, "worktree", "list", "--porcelain")
	if strings.Contains(wl, leftover) || strings.Contains(wl, vanished.WorktreePath) || !strings.Contains(wl, kept.WorktreePath) {
		t.Fatalf("worktrees:\n%s", wl)
	}
	if got, _ := f.o.Get(ctx, vanished.ID); got.WorktreePath != "" {
		t.Fatalf("vanished task %+v", got)
	}
	if got, _ := f.o.Get(ctx, kept.ID); got.WorktreePath != kept.WorktreePath {
		t.Fatalf("kept task %+v", got)
	}
	if again, err := f.o.Sweep(ctx); err != nil || len(again) != 0 {
		t.Fatalf("second sweep %v %v", again, err)
	}
}

// Processes sharing a repository do not sweep each other's work: a
// worktree another process has in flight (its name locked) and a warm
// worktree stay, while the same directory, once its process let go of it,
// is removed.
func TestSweepSparesOtherProcesses(t *testing.T) {
	repo := testkit.Repo(t)
	ctx := context.Background()
	busy := newFixture(t, repo, func(o *Options) { o.NoPool = true })
	dir := wtDirOf(t, busy)
	id, err := busy.o.reserve(dir)
	if err != nil {
		t.Fatal(err)
	}
	inFlight := filepath.Join(dir, id)
	testkit.Git(t, repo, "worktree", "add", "-q", "--detach", inFlight, "HEAD")
	warm := filepath.Join(dir, warmPrefix+"w1")
	testkit.Git(t, repo, "worktree", "add", "-q", "--detach", warm, "HEAD")

	other := newFixture(t, repo, func(o *Options) { o.NoPool = true })
	removed, err := other.o.Sweep(ctx)
	if err != nil || len(removed) != 0 {
		t.Fatalf("swept %v (%v) while another process held it", removed, err)
	}
	for _, p := range []string{inFlight, warm} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
	}
	busy.o.release(dir, id)
	removed, err = other.o.Sweep(ctx)
	if err != nil || !slices.Equal(removed, []string{inFlight}) {
		t.Fatalf("swept %v (%v), want the released %s", removed, err, inFlight)
	}
	if _, err := os.Stat(warm); err != nil {
		t.Fatalf("warm worktree swept: %v", err)
	}
}
