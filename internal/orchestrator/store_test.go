package orchestrator

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/sqlitex"
	"github.com/sudocode/sudocode/internal/testkit"
)

// A restarted server finds its tasks, their logs and their worktrees, and
// can run them again.
func TestRestartKeepsTasksAndLogs(t *testing.T) {
	repo := testkit.Repo(t)
	ctx := context.Background()
	f := newFixture(t, repo, func(o *Options) { o.NoPool = true }) // no fill stopped half-way for the sweep below
	task := f.wait(t, f.create(t, CreateInput{Agent: "COMMAND", Description: "before restart", Config: shell(`echo one; echo two > two.txt`)}).ID)
	before, _ := f.o.Logs(ctx, task.ID, 0, 0)
	f.o.Close()
	f.store.Close()

	s, err := OpenStore(ctx, f.data)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	o := New(s, lookupReal, Options{Repo: repo, NoPool: true, FlushEvery: 10 * time.Millisecond})
	defer o.Close()
	got, err := o.Get(ctx, task.ID)
	if err != nil || got.Status != StatusCompleted || got.WorktreePath != task.WorktreePath || string(got.Result) != string(task.Result) ||
		got.StartedAt == nil || !got.StartedAt.Equal(*task.StartedAt) || got.FinishedAt == nil || !got.FinishedAt.Equal(*task.FinishedAt) {
		t.Fatalf("after restart %+v %v", got, err)
	}
	after, err := o.Logs(ctx, task.ID, 0, 0)
	if err != nil || len(after) != len(before) || after[0].Event.Text != "one" {
		t.Fatalf("logs %+v %v", after, err)
	}
	if removed, err := o.Sweep(ctx); err != nil || len(removed) != 0 {
		t.Fatalf("sweep %v %v", removed, err)
	}
	if _, err := o.Update(ctx, task.ID, UpdateInput{Instructions: "again"}); err != nil {
		t.Fatal(err)
	}
	if err := o.Wait(ctx, task.ID); err != nil {
		t.Fatal(err)
	}
	rep, err := o.Report(ctx, task.ID)
	if err != nil || rep.Status != StatusCompleted || rep.Events != int64(2*len(before)) || strings.Join(rep.FilesChanged, ",") != "two.txt" {
		t.Fatalf("report %+v %v", rep, err)
	}
}

// oldSchema is the tasks table before started_at and finished_at.
const oldSchema = `CREATE TABLE tasks (
	id TEXT PRIMARY KEY, tool TEXT NOT NULL, description TEXT NOT NULL, instructions TEXT NOT NULL,
	branch TEXT NOT NULL, worktree TEXT NOT NULL, base_sha TEXT NOT NULL, config TEXT NOT NULL,
	status TEXT NOT NULL, result TEXT NOT NULL, error TEXT NOT NULL, session_id TEXT NOT NULL,
	pid INTEGER NOT NULL, owner_pid INTEGER NOT NULL, actor TEXT NOT NULL,
	created_at TEXT NOT NULL, updated_at TEXT NOT NULL
) WITHOUT ROWID;
INSERT INTO tasks VALUES ('old1', 'COMMAND', 'old', 'old', 'b', '', 'abc', '', 'completed', '', '', '', 0, 0, '',
	'2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z');`

// A database made before the timing columns opens, keeps its tasks and
// stores timings.
func TestStoreUpgradesOldSchema(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, err := sqlitex.Open(ctx, filepath.Join(dir, DBFileName), 1, oldSchema)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	for i := range 2 { // the second open finds the columns there
		s, err := OpenStore(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		task, err := s.Get(ctx, "old1")
		if err != nil || task.Status != StatusCompleted || (i == 0) != (task.StartedAt == nil) {
			t.Fatalf("old task %+v %v", task, err)
		}
		now := time.Now().UTC()
		task.StartedAt, task.FinishedAt = &now, &now
		if err := s.Put(ctx, task); err != nil {
			t.Fatal(err)
		}
		if task, _ = s.Get(ctx, "old1"); task.StartedAt == nil || !task.StartedAt.Equal(now) {
			t.Fatalf("timings not stored: %+v", task)
		}
		s.Close()
	}
}
