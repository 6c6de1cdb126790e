package orchestrator

import (
	"context"
	"os"
	"slices"
	"testing"

	"github.com/sudocode/sudocode/internal/testkit"
)

// GC removes the worktrees of finished tasks, and the branches that hold
// nothing of their own; it never touches a worktree with uncommitted
// work (it reports it), a waiting task, or a branch with commits.
func TestGCFinishedTasks(t *testing.T) {
	repo := testkit.Repo(t)
	f := newFixture(t, repo, noPool)
	ctx := context.Background()
	empty := f.wait(t, f.create(t, CreateInput{Agent: "COMMAND", Description: "nothing", Config: shell(`true`)}).ID)
	committed := f.wait(t, f.create(t, CreateInput{Agent: "COMMAND", Description: "commit", Config: shell(
		`echo c > c.txt && git add c.txt && ` + agentCommit + ` c`)}).ID)
	dirty := f.wait(t, f.create(t, CreateInput{Agent: "COMMAND", Description: "dirty", Config: shell(`echo d > d.txt; exit 3`)}).ID)
	waiting := f.wait(t, f.create(t, CreateInput{Agent: "FAKE", Description: "waits", Config: cfg("echo SESSION s1; echo DONE ok fine")}).ID)
	if waiting.Status != StatusWaiting || dirty.Status != StatusFailed {
		t.Fatalf("statuses %s %s", waiting.Status, dirty.Status)
	}

	res, err := f.o.GC(ctx)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(res.Removed)
	want := []string{empty.ID, committed.ID}
	slices.Sort(want)
	if !slices.Equal(res.Removed, want) || !slices.Equal(res.BranchesDeleted, []string{empty.Branch}) ||
		len(res.Kept) != 1 || res.Kept[0].TaskID != dirty.ID || len(res.Kept[0].Changes) != 1 {
		t.Fatalf("gc %+v", res)
	}
	for _, p := range []string{empty.WorktreePath, committed.WorktreePath} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("worktree %s left: %v", p, err)
		}
	}
	for _, p := range []string{dirty.WorktreePath, waiting.WorktreePath} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("worktree %s removed: %v", p, err)
		}
	}
	testkit.Git(t, repo, "rev-parse", "--verify", "refs/heads/"+committed.Branch)
	if got, _ := f.o.Get(ctx, committed.ID); got.WorktreePath != "" || !got.Ended() {
		t.Errorf("collected task %+v", got)
	}
	if again, err := f.o.GC(ctx); err != nil || len(again.Removed) != 0 || len(again.Kept) != 1 {
		t.Errorf("second gc %+v %v", again, err)
	}
}
