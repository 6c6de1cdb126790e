package orchestrator

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/testkit"
)

// Ending with KeepBranch commits what the agent left uncommitted onto the
// branch, as sudocode; the worktree goes.
func TestEndKeepBranchSavesWork(t *testing.T) {
	repo := testkit.Repo(t)
	f := newFixture(t, repo)
	ctx := context.Background()
	task := f.wait(t, f.create(t, CreateInput{Agent: "COMMAND", Description: "half done", Config: shell(
		`echo one > one.txt && git add one.txt && ` + agentCommit + ` one && echo two > two.txt && echo edited >> README`)}).ID)
	end, err := f.o.End(ctx, task.ID, EndInput{KeepBranch: true, Result: json.RawMessage(`{"summary":"kept"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if end.Removal.SavedCommit == "" || end.Removal.BranchDeleted || len(end.Removal.Discarded) != 0 ||
		end.Task.Status != StatusCompleted || string(end.Task.Result) != `{"summary":"kept"}` || end.Task.FinishedAt == nil {
		t.Fatalf("end %+v", end)
	}
	if got := testkit.Git(t, repo, "rev-parse", task.Branch); got != end.Removal.SavedCommit {
		t.Fatalf("branch at %s, saved %s", got, end.Removal.SavedCommit)
	}
	// The repository's own identity (its config), as git itself resolves it.
	if got := testkit.Git(t, repo, "log", "-1", "--format=%an <%ae>|%cn <%ce>|%s", task.Branch); got !=
		"Test <test@example.com>|Test <test@example.com>|sudocode: save uncommitted work of task "+task.ID {
		t.Fatalf("saved commit %q", got)
	}
	if got := testkit.Git(t, repo, "log", "--format=%s", task.BaseSHA+".."+task.Branch); got != "sudocode: save uncommitted work of task "+task.ID+"\none" {
		t.Fatalf("branch log %q", got)
	}
	if got := testkit.Git(t, repo, "diff", "--name-only", task.BaseSHA, task.Branch); got != "README\none.txt\ntwo.txt" {
		t.Fatalf("branch files %q", got)
	}
	if _, err := os.Stat(task.WorktreePath); !os.IsNotExist(err) {
		t.Fatalf("worktree left: %v", err)
	}
	// Ending again is a no-op.
	again, err := f.o.End(ctx, task.ID, EndInput{Status: StatusFailed})
	if err != nil || again.Task.Status != StatusCompleted || again.Removal.BranchDeleted {
		t.Fatalf("second end %+v %v", again, err)
	}
	testkit.Git(t, repo, "rev-parse", "--verify", "refs/heads/"+task.Branch)

	// Nothing uncommitted: no save commit.
	clean := f.wait(t, f.create(t, CreateInput{Agent: "COMMAND", Description: "clean", Config: shell(`true`)}).ID)
	end, err = f.o.End(ctx, clean.ID, EndInput{KeepBranch: true})
	if err != nil || end.Removal.SavedCommit != "" || testkit.Git(t, repo, "rev-parse", clean.Branch) != clean.BaseSHA {
		t.Fatalf("clean end %+v %v", end, err)
	}
}

// Ending without KeepBranch discards the work and deletes the branch; an
// explicit status wins; a bad one is refused.
func TestEndDeletesBranch(t *testing.T) {
	repo := testkit.Repo(t)
	f := newFixture(t, repo)
	ctx := context.Background()
	task := f.wait(t, f.create(t, CreateInput{Agent: "COMMAND", Description: "throwaway", Config: shell(
		`echo x > x.txt && git add x.txt && ` + agentCommit + ` x && echo y > y.txt`)}).ID)
	for _, bad := range []Status{StatusWaiting, StatusInProgress, "done"} {
		if _, err := f.o.End(ctx, task.ID, EndInput{Status: bad}); !fault.Is(err, fault.Invalid) {
			t.Fatalf("status %q: %v", bad, err)
		}
	}
	if _, err := f.o.End(ctx, task.ID, EndInput{Result: json.RawMessage(`{nope`)}); !fault.Is(err, fault.Invalid) {
		t.Fatalf("bad result: %v", err)
	}
	if _, err := f.o.End(ctx, "nope", EndInput{}); !fault.Is(err, fault.NotFound) {
		t.Fatalf("unknown task: %v", err)
	}
	end, err := f.o.End(ctx, task.ID, EndInput{Status: StatusFailed})
	if err != nil {
		t.Fatal(err)
	}
	if !end.Removal.BranchDeleted || end.Removal.SavedCommit != "" || strings.Join(end.Removal.Discarded, "|") != "?? y.txt" || end.Task.Status != StatusFailed {
		t.Fatalf("end %+v", end)
	}
	if testkit.GitCmd(repo, "rev-parse", "--verify", "--quiet", "refs/heads/"+task.Branch).Run() == nil {
		t.Fatal("branch kept")
	}
	// The report falls back to what the run stored.
	rep, err := f.o.Report(ctx, task.ID)
	if err != nil || rep.Commits != 1 || strings.Join(rep.FilesChanged, ",") != "x.txt,y.txt" || rep.DiffStat.Files != 2 || rep.Outcome != OutcomeSucceeded {
		t.Fatalf("report %+v %v", rep, err)
	}
}

// When git knows no identity (none in the repository's or the user's
// config), the save commit falls back to sudocode's own.
func TestSaveCommitIdentityFallback(t *testing.T) {
	repo := testkit.Repo(t)
	testkit.Git(t, repo, "config", "--unset", "user.name")
	testkit.Git(t, repo, "config", "--unset", "user.email")
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", home)
	f := newFixture(t, repo, noPool)
	task := f.wait(t, f.create(t, CreateInput{Agent: "COMMAND", Description: "dirty", Config: shell(`echo x > x.txt`)}).ID)
	if _, err := f.o.End(context.Background(), task.ID, EndInput{KeepBranch: true}); err != nil {
		t.Fatal(err)
	}
	if got := testkit.Git(t, repo, "log", "-1", "--format=%an <%ae>", task.Branch); got != "sudocode <sudocode@localhost>" {
		t.Fatalf("saved commit by %q", got)
	}
}
