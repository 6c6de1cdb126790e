package orchestrator

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/sqlitex"
)

// failedTask is a failed task of issue.
func failedTask(id, issue string) Task {
	now := time.Now().UTC()
	return Task{ID: id, Agent: "COMMAND", Description: id, Instructions: id, Branch: "b-" + id, Status: StatusFailed,
		Error: &TaskError{Type: ErrTypeServerStopped}, IssueID: issue, CreatedAt: now, UpdatedAt: now}
}

// The duty of noting a failure on its issue: listed until noted, claimed by
// one process at a time, retried after a failed write; a database from
// before the duty holds its failures as noted (the process that saw each
// noted it).
func TestIssueNotes(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := OpenStore(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Put(ctx, failedTask("before", "app-1")); err != nil {
		t.Fatal(err)
	}
	s.Close()
	db, err := sqlitex.Open(ctx, filepath.Join(dir, DBFileName), 1, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`DROP TABLE issue_notes`); err != nil {
		t.Fatal(err)
	}
	db.Close()

	s, err = OpenStore(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	unnoted := func() []string {
		t.Helper()
		tasks, err := s.UnnotedFailures(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, t := range tasks {
			ids = append(ids, t.ID)
		}
		return ids
	}
	if got := unnoted(); len(got) != 0 {
		t.Fatalf("failures from before the duty listed as unnoted: %v", got)
	}
	s.Put(ctx, failedTask("now", "app-2"))
	s.Put(ctx, failedTask("no-issue", ""))
	if got := unnoted(); len(got) != 1 || got[0] != "now" {
		t.Fatalf("unnoted = %v, want [now]", got)
	}
	claim := func(want bool) {
		t.Helper()
		if got, err := s.ClaimIssueNote(ctx, "now"); err != nil || got != want {
			t.Fatalf("claim = %v, %v; want %v", got, err, want)
		}
	}
	claim(true)
	claim(false) // this process is writing it
	if err := s.IssueNoted(ctx, "now", false); err != nil {
		t.Fatal(err)
	}
	claim(true) // the failed write is retried
	if err := s.IssueNoted(ctx, "now", true); err != nil {
		t.Fatal(err)
	}
	claim(false)
	if got := unnoted(); len(got) != 0 {
		t.Fatalf("unnoted after the note = %v", got)
	}
}

// A claim left by a process that died while writing is taken over.
func TestIssueNoteOfADeadClaimerIsTakenOver(t *testing.T) {
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
	if _, err := db.Exec(`INSERT INTO issue_notes VALUES ('t1', 0, ?)`, deadPID(t)); err != nil {
		t.Fatal(err)
	}
	if got, err := s.ClaimIssueNote(ctx, "t1"); err != nil || !got {
		t.Fatalf("claim after a dead claimer = %v, %v; want true", got, err)
	}
}
