package orchestrator

import (
	"context"
	"database/sql"
	"errors"
	"os"

	"github.com/sudocode/sudocode/internal/fault"
)

// A failed task of an issue must leave its failure on the issue exactly
// once, whichever process saw it fail (the server that ran it, a CLI
// command waiting for it, or the next process to open the tasks after
// the server died), and even when the process noting it dies halfway.
// The issue_notes table is that duty, keyed by task id: a process claims
// a task's note (its pid recorded while it writes), then marks it noted,
// or drops the claim when the write failed so that the next one retries;
// a claim whose process is gone is taken over.
const issueNotesSchema = `CREATE TABLE IF NOT EXISTS issue_notes (
	task_id TEXT PRIMARY KEY,
	noted   INTEGER NOT NULL, -- 1 once the failure is on the issue (or the issue no longer wanted it)
	claimer INTEGER NOT NULL  -- the process writing it, while noted = 0
) WITHOUT ROWID;`

// addIssueNotes makes the issue_notes table in a database that lacks it.
// The failures such a database holds were noted on their issues by the
// process that saw them, as the tasks were before the table: they count as
// noted.
func addIssueNotes(ctx context.Context, tx *sql.Tx) error {
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'issue_notes'`).Scan(&n); err != nil || n == 1 {
		return err
	}
	if _, err := tx.ExecContext(ctx, issueNotesSchema); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO issue_notes (task_id, noted, claimer) SELECT id, 1, 0 FROM tasks WHERE status = ?`, string(StatusFailed))
	return err
}

// ClaimIssueNote claims the note of task id's failure for this process: it
// reports false when the note is written already or another live process
// is writing it.
func (s *Store) ClaimIssueNote(ctx context.Context, id string) (bool, error) {
	tx, err := s.db.BeginTx(ctx, nil) // immediate: one claimer at a time
	if err != nil {
		return false, fault.Wrap(fault.Unavailable, err, "failed to claim the issue note of task "+id)
	}
	defer tx.Rollback()
	var noted, claimer int
	err = tx.QueryRowContext(ctx, `SELECT noted, claimer FROM issue_notes WHERE task_id = ?`, id).Scan(&noted, &claimer)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return false, fault.Wrap(fault.Unavailable, err, "failed to claim the issue note of task "+id)
	case noted == 1 || claimer == os.Getpid() || processAlive(claimer):
		return false, nil
	}
	if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO issue_notes (task_id, noted, claimer) VALUES (?, 0, ?)`, id, os.Getpid()); err != nil {
		return false, fault.Wrap(fault.Unavailable, err, "failed to claim the issue note of task "+id)
	}
	if err := tx.Commit(); err != nil {
		return false, fault.Wrap(fault.Unavailable, err, "failed to claim the issue note of task "+id)
	}
	return true, nil
}

// IssueNoted ends this process's claim on task id's note: done, the note
// is on the issue; not done, the claim is dropped for a later retry.
func (s *Store) IssueNoted(ctx context.Context, id string, done bool) error {
	q := `UPDATE issue_notes SET noted = 1, claimer = 0 WHERE task_id = ? AND claimer = ?`
	if !done {
		q = `DELETE FROM issue_notes WHERE task_id = ? AND claimer = ? AND noted = 0`
	}
	if _, err := s.db.ExecContext(ctx, q, id, os.Getpid()); err != nil {
		return fault.Wrap(fault.Unavailable, err, "failed to record the issue note of task "+id)
	}
	return nil
}

// UnnotedFailures returns the failed tasks of issues whose failure is not
// noted yet (nor being noted by a live process), oldest first.
func (s *Store) UnnotedFailures(ctx context.Context) ([]Task, error) {
	return s.query(ctx, `SELECT `+taskCols+` FROM tasks
		WHERE issue_id != '' AND status = ? AND error != ''
		AND NOT EXISTS (SELECT 1 FROM issue_notes n WHERE n.task_id = tasks.id AND n.noted = 1)
		ORDER BY created_at, id`, string(StatusFailed))
}

// ClaimIssueNote claims the note of task id's failure (Store.ClaimIssueNote).
func (o *Orchestrator) ClaimIssueNote(ctx context.Context, id string) (bool, error) {
	return o.store.ClaimIssueNote(ctx, id)
}

// IssueNoted ends a claim on task id's note (Store.IssueNoted).
func (o *Orchestrator) IssueNoted(ctx context.Context, id string, done bool) error {
	return o.store.IssueNoted(ctx, id, done)
}

// UnnotedFailures returns the failed tasks whose issue does not hold their
// failure yet (Store.UnnotedFailures).
func (o *Orchestrator) UnnotedFailures(ctx context.Context) ([]Task, error) {
	return o.store.UnnotedFailures(ctx)
}
