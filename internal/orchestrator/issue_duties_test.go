package orchestrator

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/sqlitex"
)

// failedTask is a failed task of issue.
func failedTask(id, issue string) Task {
	now := time.Now().UTC()
	return Task{ID: id, Agent: "COMMAND", Description: id, Instructions: id, Branch: "b-" + id, WorktreePath: "/worktrees/" + id, Status: StatusFailed,
		Error: &TaskError{Type: ErrTypeServerStopped}, IssueID: issue, CreatedAt: now, UpdatedAt: now}
}

// mergedTask is a merged task of issue.
func mergedTask(id, issue string) Task {
	t := failedTask(id, issue)
	t.Status, t.Error, t.MergedCommit, t.WorktreePath = StatusCompleted, nil, "c0ffee", ""
	return t
}

// endedTask is a task of issue ended without a merge.
func endedTask(id, issue string) Task {
	t := failedTask(id, issue)
	t.Status, t.Error, t.WorktreePath = StatusCancelled, nil, ""
	return t
}

// storeFrom makes a task store holding tasks, changes its database with
// stmts (as an older version left it), and opens it again, as the next
// process would.
func storeFrom(t *testing.T, tasks []Task, stmts ...string) *Store {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	s, err := OpenStore(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range tasks {
		if err := s.Put(ctx, task); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	db, err := sqlitex.Open(ctx, filepath.Join(dir, DBFileName), 1, "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if s, err = OpenStore(ctx, dir); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// An issue's duties: listed until done, claimed by one process at a time,
// retried after a failed write; a database from before the duties holds
// its failures and merges as done (the process that saw each made it).
func TestIssueDuties(t *testing.T) {
	ctx := context.Background()
	s := storeFrom(t, []Task{failedTask("before", "app-1"), mergedTask("merged-before", "app-3"), endedTask("ended-before", "app-5")},
		`DROP TABLE issue_duties`)
	undone := func(duty IssueDuty) []string {
		t.Helper()
		tasks, err := s.UndoneIssueDuties(ctx, duty)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, t := range tasks {
			ids = append(ids, t.ID)
		}
		return ids
	}
	for _, duty := range []IssueDuty{DutyNoteFailure, DutyCloseMerged, DutyReleaseEnded} {
		if got := undone(duty); len(got) != 0 {
			t.Fatalf("%s duties from before the table listed as undone: %v", duty, got)
		}
	}
	s.Put(ctx, failedTask("now", "app-2"))
	s.Put(ctx, failedTask("no-issue", ""))
	s.Put(ctx, mergedTask("merged-now", "app-4"))
	s.Put(ctx, endedTask("ended-now", "app-6"))
	if got := undone(DutyNoteFailure); len(got) != 1 || got[0] != "now" {
		t.Fatalf("undone failure notes = %v, want [now]", got)
	}
	if got := undone(DutyCloseMerged); len(got) != 1 || got[0] != "merged-now" {
		t.Fatalf("undone merge closes = %v, want [merged-now]", got)
	}
	if got := undone(DutyReleaseEnded); len(got) != 1 || got[0] != "ended-now" {
		t.Fatalf("undone hand-backs = %v, want [ended-now]", got)
	}
	for _, c := range []struct {
		id   string
		duty IssueDuty
	}{{"now", DutyNoteFailure}, {"merged-now", DutyCloseMerged}, {"ended-now", DutyReleaseEnded}} {
		claim := func(want bool) {
			t.Helper()
			if got, err := s.ClaimIssueDuty(ctx, c.id, c.duty); err != nil || got != want {
				t.Fatalf("claim %s of %s = %v, %v; want %v", c.duty, c.id, got, err, want)
			}
		}
		claim(true)
		claim(false) // this process is at work on it
		if err := s.IssueDutyDone(ctx, c.id, c.duty, false); err != nil {
			t.Fatal(err)
		}
		claim(true) // the failed write is retried
		if err := s.IssueDutyDone(ctx, c.id, c.duty, true); err != nil {
			t.Fatal(err)
		}
		claim(false)
		if got := undone(c.duty); len(got) != 0 {
			t.Fatalf("undone %s duties once done = %v", c.duty, got)
		}
	}
}

// A database with the first table of failure notes (issue_notes) keeps
// what it says: a noted failure stays done, an unnoted one is owed; its
// merges count as done.
func TestIssueNotesBecomeDuties(t *testing.T) {
	ctx := context.Background()
	s := storeFrom(t, []Task{failedTask("noted", "app-1"), failedTask("unnoted", "app-2"), mergedTask("merged", "app-3")},
		`DROP TABLE issue_duties`,
		`CREATE TABLE issue_notes (task_id TEXT PRIMARY KEY, noted INTEGER NOT NULL, claimer INTEGER NOT NULL) WITHOUT ROWID`,
		`INSERT INTO issue_notes VALUES ('noted', 1, 0)`)
	for duty, want := range map[IssueDuty]string{DutyNoteFailure: "unnoted", DutyCloseMerged: ""} {
		tasks, err := s.UndoneIssueDuties(ctx, duty)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, task := range tasks {
			ids = append(ids, task.ID)
		}
		if strings.Join(ids, ",") != want {
			t.Errorf("undone %s duties after the upgrade: %v, want %q", duty, ids, want)
		}
	}
}

// A claim left by a process that died while at work is taken over.
func TestIssueDutyOfADeadClaimerIsTakenOver(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := OpenStore(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.Put(ctx, failedTask("t1", "app-1"))
	db, err := sqlitex.Open(ctx, filepath.Join(dir, DBFileName), 1, "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`INSERT INTO issue_duties VALUES ('t1', ?, 0, ?)`, DutyNoteFailure, deadPID(t)); err != nil {
		t.Fatal(err)
	}
	if got, err := s.ClaimIssueDuty(ctx, "t1", DutyNoteFailure); err != nil || !got {
		t.Fatalf("claim after a dead claimer = %v, %v; want true", got, err)
	}
}
