package orchestrator

import (
	"context"
	"testing"

	"github.com/sudocode/sudocode/internal/testkit"
)

// A merge that moved the checkout's branch, whose process died before it
// recorded the task merged, is finished by the next merge of the task,
// not made again: the branch holds one squash commit, the task reads
// merged at it. An intent that never landed is dropped and the merge is
// made.
func TestMergeLandedBeforeACrashIsFinishedNotRepeated(t *testing.T) {
	ctx := context.Background()
	repo := testkit.Repo(t)
	f := newFixture(t, repo)
	task := f.wait(t, f.create(t, CreateInput{Agent: "COMMAND", Description: "work",
		Config: shell(`echo c > c.txt && git add c.txt && ` + agentCommit + ` c && echo loose > loose.txt`)}).ID)
	base := testkit.Git(t, repo, "rev-parse", "HEAD")

	// The first merge, up to the branch's move: then its process dies.
	top, settings, err := f.o.wt.settings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	work, err := f.o.wt.snapshotKeeping(ctx, task.ID, task.WorktreePath, task.Branch)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := f.o.land(ctx, task, work.commit, MergeSquash, "work", settings, top)
	work.index.remove()
	if err != nil {
		t.Fatal(err)
	}

	res, err := f.o.Merge(ctx, task.ID, MergeInput{Strategy: MergeSquash})
	if err != nil {
		t.Fatal(err)
	}
	if res.Commit != plan.commit || res.Task.MergedCommit != plan.commit || res.Task.State() != StateMerged {
		t.Fatalf("merged as %s (task %s, %s), want the landed %s", res.Commit, res.Task.MergedCommit, res.Task.State(), plan.commit)
	}
	if n := testkit.Git(t, repo, "rev-list", "--count", base+"..HEAD"); n != "1" {
		t.Fatalf("%s commits on the branch since the task, want the one squash:\n%s", n, testkit.Git(t, repo, "log", "--oneline", base+"..HEAD"))
	}
	if _, _, ok, err := f.store.mergeIntent(ctx, task.ID); ok || err != nil {
		t.Fatalf("the intent is still recorded (%v)", err)
	}

	// An intent whose commit never reached the branch is not taken for
	// a merge.
	other := f.wait(t, f.create(t, CreateInput{Agent: "COMMAND", Description: "other",
		Config: shell(`echo d > d.txt && git add d.txt && ` + agentCommit + ` d`)}).ID)
	tip := testkit.Git(t, repo, "rev-parse", other.Branch)
	if err := f.store.putMergeIntent(ctx, other.ID, tip, "main"); err != nil {
		t.Fatal(err)
	}
	head := testkit.Git(t, repo, "rev-parse", "HEAD")
	res, err = f.o.Merge(ctx, other.ID, MergeInput{Strategy: MergeSquash})
	if err != nil {
		t.Fatal(err)
	}
	if res.Commit == tip || testkit.Git(t, repo, "rev-parse", "HEAD^") != head || testkit.Git(t, repo, "show", "HEAD:d.txt") != "d" {
		t.Fatalf("the other task's merge: %s, the branch's log:\n%s", res.Commit, testkit.Git(t, repo, "log", "--oneline", "-3"))
	}
}
