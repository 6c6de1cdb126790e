package orchestrator

import (
	"context"
	"database/sql"
	"errors"
	"os"

	"github.com/sudocode/sudocode/internal/fault"
)

// IssueDuty is a change a task's life owes its issue. Each must land on the
// issue exactly once, whichever process gets there (the server that ran
// the task, a CLI command waiting for it, or the next process to open the
// tasks after that one died), even when the process making it dies
// halfway. The issue_duties table holds them, keyed by task id and duty: a
// process claims a duty (its pid recorded while it works), then marks it
// done, or drops the claim when it failed so that the next one retries; a
// claim whose process is gone is taken over.
type IssueDuty string

// The duties.
const (
	// DutyNoteFailure: a failed task's failure is appended to its issue,
	// which is handed back (open, unassigned).
	DutyNoteFailure IssueDuty = "failure"
	// DutyCloseMerged: a merged task's issue is closed with the merge.
	DutyCloseMerged IssueDuty = "merge"
	// DutyReleaseEnded: the issue of a task ended without a merge (and
	// without a failure, whose note hands the issue back) is handed back,
	// open and unassigned, if the task still holds it.
	DutyReleaseEnded IssueDuty = "end"
)

// owedSQL is the condition on tasks that owe their issue a duty.
var owedSQL = map[IssueDuty]string{
	DutyNoteFailure: `status = '` + string(StatusFailed) + `' AND error != ''`,
	DutyCloseMerged: `merged_commit != ''`,
	// A failed task's issue is handed back by its failure's note.
	DutyReleaseEnded: `merged_commit = '' AND worktree = '' AND status IN ('` + string(StatusCompleted) + `', '` + string(StatusCancelled) + `')`,
}

const issueDutiesSchema = `CREATE TABLE IF NOT EXISTS issue_duties (
	task_id TEXT NOT NULL,
	duty    TEXT NOT NULL,
	done    INTEGER NOT NULL, -- 1 once the issue holds it (or no longer wanted it)
	claimer INTEGER NOT NULL, -- the process making it, while done = 0
	PRIMARY KEY (task_id, duty)
) WITHOUT ROWID;`

// addIssueDuties makes the issue_duties table in a database that lacks it.
// The failures and merges such a database holds reached their issues
// through the process that saw them, as tasks did before the table: they
// count as done (those of the first table, issue_notes, as it says).
func addIssueDuties(ctx context.Context, tx *sql.Tx) error {
	has := func(table string) (bool, error) {
		var n int
		err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?`, table).Scan(&n)
		return n == 1, err
	}
	if ok, err := has("issue_duties"); err != nil || ok {
		return err
	}
	if _, err := tx.ExecContext(ctx, issueDutiesSchema); err != nil {
		return err
	}
	notes, err := has("issue_notes")
	if err != nil {
		return err
	}
	failures := `INSERT INTO issue_duties (task_id, duty, done, claimer) SELECT id, ?, 1, 0 FROM tasks WHERE status = '` + string(StatusFailed) + `'`
	if notes {
		failures = `INSERT INTO issue_duties (task_id, duty, done, claimer) SELECT task_id, ?, noted, claimer FROM issue_notes`
	}
	if _, err := tx.ExecContext(ctx, failures, DutyNoteFailure); err != nil {
		return err
	}
	for _, duty := range []IssueDuty{DutyCloseMerged, DutyReleaseEnded} {
		if _, err := tx.ExecContext(ctx, `INSERT INTO issue_duties (task_id, duty, done, claimer) SELECT id, ?, 1, 0 FROM tasks WHERE `+owedSQL[duty], duty); err != nil {
			return err
		}
	}
	if notes {
		_, err = tx.ExecContext(ctx, `DROP TABLE issue_notes`)
	}
	return err
}

// ClaimIssueDuty claims task id's duty for this process: it reports false
// when the duty is done already or another live process is doing it.
func (s *Store) ClaimIssueDuty(ctx context.Context, id string, duty IssueDuty) (bool, error) {
	fail := func(err error) (bool, error) {
		return false, fault.Wrap(fault.Unavailable, err, "failed to claim the "+string(duty)+" duty of task "+id+" on its issue")
	}
	tx, err := s.db.BeginTx(ctx, nil) // immediate: one claimer at a time
	if err != nil {
		return fail(err)
	}
	defer tx.Rollback()
	var done, claimer int
	err = tx.QueryRowContext(ctx, `SELECT done, claimer FROM issue_duties WHERE task_id = ? AND duty = ?`, id, duty).Scan(&done, &claimer)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return fail(err)
	case done == 1 || claimer == os.Getpid() || processAlive(claimer):
		return false, nil
	}
	if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO issue_duties (task_id, duty, done, claimer) VALUES (?, ?, 0, ?)`, id, duty, os.Getpid()); err != nil {
		return fail(err)
	}
	if err := tx.Commit(); err != nil {
		return fail(err)
	}
	return true, nil
}

// IssueDutyDone ends this process's claim on task id's duty: done, the
// issue holds it; not done, the claim is dropped for a later retry.
func (s *Store) IssueDutyDone(ctx context.Context, id string, duty IssueDuty, done bool) error {
	q := `UPDATE issue_duties SET done = 1, claimer = 0 WHERE task_id = ? AND duty = ? AND claimer = ?`
	if !done {
		q = `DELETE FROM issue_duties WHERE task_id = ? AND duty = ? AND claimer = ? AND done = 0`
	}
	if _, err := s.db.ExecContext(ctx, q, id, duty, os.Getpid()); err != nil {
		return fault.Wrap(fault.Unavailable, err, "failed to record the "+string(duty)+" duty of task "+id+" on its issue")
	}
	return nil
}

// UndoneIssueDuties returns the tasks of issues that are owed duty and do
// not have it yet (nor from a live process at work on it), oldest first:
// failed tasks with their error for DutyNoteFailure, merged tasks for
// DutyCloseMerged, tasks ended without a merge for DutyReleaseEnded.
func (s *Store) UndoneIssueDuties(ctx context.Context, duty IssueDuty) ([]Task, error) {
	owed, ok := owedSQL[duty]
	if !ok {
		return nil, fault.New(fault.Internal, "no such issue duty: %q", duty)
	}
	return s.query(ctx, `SELECT `+taskCols+` FROM tasks
		WHERE issue_id != '' AND `+owed+`
		AND NOT EXISTS (SELECT 1 FROM issue_duties d WHERE d.task_id = tasks.id AND d.duty = ? AND d.done = 1)
		ORDER BY created_at, id`, duty)
}
