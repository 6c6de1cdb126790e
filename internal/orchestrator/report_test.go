package orchestrator

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/testkit"
)

// field is one checked part of a report: what it is called, what it is
// and what it must be (compared with reflect.DeepEqual, types included).
type field struct {
	name      string
	got, want any
}

// wantReport checks every field of a table and, when one is off, shows
// the report whole.
func wantReport(t *testing.T, what string, rep Report, fields []field) {
	t.Helper()
	ok := true
	for _, f := range fields {
		if !reflect.DeepEqual(f.got, f.want) {
			t.Errorf("%s: %s = %#v, want %#v", what, f.name, f.got, f.want)
			ok = false
		}
	}
	if !ok {
		t.Fatalf("%s: report %+v", what, rep)
	}
}

// span is finished_at − started_at in ms, -1 when either is missing.
func span(rep Report) int64 {
	if rep.StartedAt == nil || rep.FinishedAt == nil {
		return -1
	}
	return rep.FinishedAt.Sub(*rep.StartedAt).Milliseconds()
}

func TestReport(t *testing.T) {
	f := newFixture(t, testkit.Repo(t))
	ctx := context.Background()
	report := func(id string) Report {
		t.Helper()
		rep, err := f.o.Report(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	task := f.wait(t, f.create(t, CreateInput{Agent: "COMMAND", Description: "report me", Config: shell(
		`printf 'a\nb\n' > a.txt && git add a.txt && ` + agentCommit + ` a && echo more >> README && echo hello`)}).ID)
	rep := report(task.ID)
	wantReport(t, "finished", rep, []field{
		{"id", rep.ID, task.ID},
		{"tool", rep.Agent, "COMMAND"},
		{"description", rep.Description, "report me"},
		{"branch", rep.Branch, task.Branch},
		{"base_sha", rep.BaseSHA, task.BaseSHA},
		{"status", rep.Status, StatusCompleted},
		{"outcome", rep.Outcome, OutcomeSucceeded},
		{"final_answer", rep.FinalAnswer, "exited with code 0"},
		{"commits", rep.Commits, 1},
		{"files_changed", rep.FilesChanged, []string{"README", "a.txt"}},
		{"diff_stat.files", rep.DiffStat.Files, 2},
		{"diff_stat.insertions", rep.DiffStat.Insertions, 3},
		{"diff_stat.deletions", rep.DiffStat.Deletions, 0},
		{"diff_stat.text names a.txt", strings.Contains(rep.DiffStat.Text, "a.txt"), true},
		{"diff_stat.text counts the files", strings.Contains(rep.DiffStat.Text, "2 files changed"), true},
		{"events", rep.Events, int64(3)},
		{"error", rep.Error, (*TaskError)(nil)},
		{"started_at set", rep.StartedAt != nil, true},
		{"finished_at set", rep.FinishedAt != nil, true},
		{"duration_ms is finished_at − started_at", rep.DurationMS, span(rep)},
		{"duration_ms ≥ 0", rep.DurationMS >= 0, true},
		{"usage.run.cost_usd", rep.Usage.Run.CostUSD, (*float64)(nil)},
		{"usage.task.tokens", rep.Usage.Task.Tokens == nil, true},
	})

	// Live: work done after the run shows at once.
	os.WriteFile(filepath.Join(task.WorktreePath, "later.txt"), []byte("x\n"), 0o644)
	rep = report(task.ID)
	wantReport(t, "live", rep, []field{
		{"files_changed", rep.FilesChanged, []string{"README", "a.txt", "later.txt"}},
		{"diff_stat.files", rep.DiffStat.Files, 3},
	})
	// The JSON names are snake_case; an empty list is [], never null.
	b, _ := json.Marshal(rep)
	var inJSON []field
	for _, k := range []string{`"base_sha"`, `"started_at"`, `"finished_at"`, `"duration_ms"`, `"final_answer"`, `"files_changed"`,
		`"diff_stat":{"files":3,"insertions":4,"deletions":0,"text":`, `"events":3`, `"permission_denials":[]`} {
		inJSON = append(inJSON, field{"JSON holds " + k, strings.Contains(string(b), k), true})
	}
	wantReport(t, "JSON "+string(b), rep, inJSON)

	// Kept branch, no worktree: from the branch.
	if _, err := f.o.End(ctx, task.ID, EndInput{KeepBranch: true}); err != nil {
		t.Fatal(err)
	}
	rep = report(task.ID)
	wantReport(t, "after end", rep, []field{
		{"commits", rep.Commits, 2},
		{"files_changed", rep.FilesChanged, []string{"README", "a.txt", "later.txt"}},
	})

	// While running: no outcome, a duration that grows from the start.
	run := f.create(t, CreateInput{Agent: "COMMAND", Description: "slow", Config: shell(`sleep 30`)})
	testkit.WaitFor(t, 10*time.Second, "the running task's duration to pass 0 ms", func() bool {
		rep = report(run.ID)
		return rep.DurationMS > 0
	})
	wantReport(t, "running", rep, []field{
		{"status", rep.Status, StatusInProgress},
		{"outcome", rep.Outcome, ""},
		{"finished_at", rep.FinishedAt, (*time.Time)(nil)},
		{"duration_ms > 0", rep.DurationMS > 0, true},
		{"files_changed is a list", rep.FilesChanged != nil, true},
	})
	end, err := f.o.End(ctx, run.ID, EndInput{})
	if err != nil || end.Task.Status != StatusCancelled {
		t.Fatalf("end %+v %v", end, err)
	}
	rep = report(run.ID)
	wantReport(t, "cancelled", rep, []field{{"outcome", rep.Outcome, OutcomeCancelled}})

	if _, err := f.o.Report(ctx, "nope"); !fault.Is(err, fault.NotFound) {
		t.Fatalf("unknown task: %v", err)
	}
}

func TestUpdateInProgressOnlyWhileRunning(t *testing.T) {
	f := newFixture(t, testkit.Repo(t))
	ctx := context.Background()
	task := f.create(t, CreateInput{Agent: "COMMAND", Description: "slow", Config: shell(`sleep 30`)})
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
	f := newFixture(t, testkit.Repo(t))
	ctx := context.Background()
	f.wait(t, f.create(t, CreateInput{Agent: "COMMAND", Description: "one", Config: shell(`true`)}).ID)
	slow := f.create(t, CreateInput{Agent: "COMMAND", Description: "two", Config: shell(`sleep 30`)})
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

// RecordedReport reports a run as its end recorded it; Report reads the
// worktree again and sees what changed since.
func TestRecordedReportIsTheRunsRecord(t *testing.T) {
	f := newFixture(t, testkit.Repo(t))
	ctx := context.Background()
	task := f.wait(t, f.create(t, CreateInput{Agent: "COMMAND", Description: "one file", Config: shell(`echo a > a.txt`)}).ID)
	os.WriteFile(filepath.Join(task.WorktreePath, "later.txt"), []byte("later\n"), 0o644)
	run, err := f.o.RecordedReport(ctx, task.ID)
	if err != nil || !slices.Equal(run.FilesChanged, []string{"a.txt"}) || run.DiffStat.Files != 1 || !strings.Contains(run.DiffStat.Text, "a.txt | 1 +") {
		t.Fatalf("run report %+v %v", run, err)
	}
	live, err := f.o.Report(ctx, task.ID)
	if err != nil || !slices.Equal(live.FilesChanged, []string{"a.txt", "later.txt"}) || live.DiffStat.Files != 2 {
		t.Fatalf("report %+v %v", live, err)
	}
}
