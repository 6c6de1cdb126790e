package orchestrator

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/testkit"
)

func TestReport(t *testing.T) {
	repo := newRepo(t)
	f := newFixture(t, repo)
	ctx := context.Background()
	task := f.create(t, CreateInput{Tool: "COMMAND", Description: "report me", Config: shell(
		`printf 'a\nb\n' > a.txt && git add a.txt && ` + agentCommit + ` a && echo more >> README && echo hello`)})
	task = f.wait(t, task.ID)
	rep, err := f.o.Report(ctx, task.ID)
	if err != nil {
		t.Fatal(err)
	}
	if rep.ID != task.ID || rep.Tool != "COMMAND" || rep.Description != "report me" || rep.Branch != task.Branch || rep.BaseSHA != task.BaseSHA ||
		rep.Status != StatusCompleted || rep.Outcome != OutcomeSucceeded || rep.FinalAnswer != "exited with code 0" || rep.Commits != 1 ||
		strings.Join(rep.FilesChanged, ",") != "README,a.txt" || rep.DiffStat.Files != 2 || rep.DiffStat.Insertions != 3 || rep.DiffStat.Deletions != 0 ||
		!strings.Contains(rep.DiffStat.Text, "a.txt") || !strings.Contains(rep.DiffStat.Text, "2 files changed") ||
		rep.Events != 3 || rep.Error != nil || rep.StartedAt == nil || rep.FinishedAt == nil || rep.DurationMS < 0 ||
		rep.FinishedAt.Sub(*rep.StartedAt).Milliseconds() != rep.DurationMS || rep.Usage.Run.CostUSD != nil || rep.Usage.Task.Tokens != nil {
		t.Fatalf("report %+v", rep)
	}
	// Live: work done after the run shows at once.
	os.WriteFile(filepath.Join(task.WorktreePath, "later.txt"), []byte("x\n"), 0o644)
	if rep, _ = f.o.Report(ctx, task.ID); strings.Join(rep.FilesChanged, ",") != "README,a.txt,later.txt" || rep.DiffStat.Files != 3 {
		t.Fatalf("live report %+v", rep)
	}
	// The JSON names are snake_case; an empty list is [], never null.
	b, _ := json.Marshal(rep)
	for _, k := range []string{`"base_sha"`, `"started_at"`, `"finished_at"`, `"duration_ms"`, `"final_answer"`, `"files_changed"`, `"diff_stat":{"files":3,"insertions":4,"deletions":0,"text":`, `"events":3`} {
		if !strings.Contains(string(b), k) {
			t.Fatalf("report JSON lacks %s: %s", k, b)
		}
	}
	// Kept branch, no worktree: from the branch.
	if _, err := f.o.End(ctx, task.ID, EndInput{KeepBranch: true}); err != nil {
		t.Fatal(err)
	}
	if rep, _ = f.o.Report(ctx, task.ID); rep.Commits != 2 || strings.Join(rep.FilesChanged, ",") != "README,a.txt,later.txt" {
		t.Fatalf("report after end %+v", rep)
	}
}

// While a task runs its report has no outcome and a growing duration; an
// unknown task has none.
func TestReportWhileRunning(t *testing.T) {
	f := newFixture(t, newRepo(t))
	ctx := context.Background()
	run := f.create(t, CreateInput{Tool: "COMMAND", Description: "slow", Config: shell(`sleep 30`)})
	rep, err := f.o.Report(ctx, run.ID)
	if err != nil || rep.Status != StatusInProgress || rep.Outcome != "" || rep.FinishedAt != nil || rep.DurationMS < 0 || rep.FilesChanged == nil {
		t.Fatalf("running report %+v %v", rep, err)
	}
	testkit.WaitFor(t, 5*time.Second, "the running task's duration to grow", func() bool {
		later, err := f.o.Report(ctx, run.ID)
		return err == nil && later.Status == StatusInProgress && later.DurationMS > rep.DurationMS
	})
	end, err := f.o.End(ctx, run.ID, EndInput{})
	if err != nil || end.Task.Status != StatusCancelled {
		t.Fatalf("end %+v %v", end, err)
	}
	if rep, _ = f.o.Report(ctx, run.ID); rep.Outcome != OutcomeCancelled {
		t.Fatalf("cancelled report %+v", rep)
	}
	if _, err := f.o.Report(ctx, "nope"); !fault.Is(err, fault.NotFound) {
		t.Fatalf("unknown task: %v", err)
	}
}

func TestUpdateInProgressOnlyWhileRunning(t *testing.T) {
	f := newFixture(t, newRepo(t))
	ctx := context.Background()
	task := f.create(t, CreateInput{Tool: "COMMAND", Description: "slow", Config: shell(`sleep 30`)})
	got, err := f.o.Update(ctx, task.ID, UpdateInput{Status: StatusInProgress, Log: "still going"})
	if err != nil || got.Status != StatusInProgress {
		t.Fatalf("update %+v %v", got, err)
	}
	if evs, _ := f.o.Logs(ctx, task.ID, 0, 0); len(evs) != 1 || evs[0].Event.Text != "still going" {
		t.Fatalf("log %+v", evs)
	}
	if _, err := f.o.End(ctx, task.ID, EndInput{}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.o.Update(ctx, task.ID, UpdateInput{Status: StatusInProgress}); !fault.Is(err, fault.Conflict) {
		t.Fatalf("after end: %v", err)
	}
}

func TestStatusOverview(t *testing.T) {
	f := newFixture(t, newRepo(t))
	ctx := context.Background()
	f.wait(t, f.create(t, CreateInput{Tool: "COMMAND", Description: "one", Config: shell(`true`)}).ID)
	slow := f.create(t, CreateInput{Tool: "COMMAND", Description: "two", Config: shell(`sleep 30`)})
	t.Setenv("PATH", t.TempDir()) // no agent CLI installed
	ov, err := f.o.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if ov.Repo != f.repo || f.o.Repo() != f.repo || ov.Total != 2 || ov.Active != 1 || ov.ByStatus[StatusCompleted] != 1 ||
		ov.ByStatus[StatusInProgress] != 1 || len(ov.ByStatus) != 6 || len(ov.Kinds) != 5 {
		t.Fatalf("overview %+v", ov)
	}
	for _, k := range ov.Kinds {
		if (k.Kind == "COMMAND") != k.Available || (!k.Available && !strings.Contains(k.Problem, "npm install")) {
			t.Fatalf("kind %+v", k)
		}
	}
	if _, err := f.o.End(ctx, slow.ID, EndInput{}); err != nil {
		t.Fatal(err)
	}
}
