package orchestrator

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"

	"github.com/sudocode/sudocode/internal/fault"
)

// remoteRunsSchema keeps the runs offered to the fleet: which worker took
// each and how far its messages were read, so that a coordinator that
// restarts reads on from there, and its task is not taken for one whose
// server died; and each task's first instructions, for a follow-up on a
// worker that cannot resume the agent's session.
const remoteRunsSchema = `CREATE TABLE IF NOT EXISTS remote_runs (
	task_id TEXT NOT NULL,
	run     INTEGER NOT NULL,
	worker  TEXT NOT NULL DEFAULT '',
	seen    INTEGER NOT NULL DEFAULT 0, -- the fleet's number of the last message stored
	ended   INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (task_id, run)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS remote_offers (
	task_id    TEXT NOT NULL,
	run        INTEGER NOT NULL,
	assignment TEXT NOT NULL, -- what was offered, to offer it again after a restart
	PRIMARY KEY (task_id, run)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS remote_prompts (
	task_id      TEXT PRIMARY KEY, -- a task's instructions at its first run offered
	instructions TEXT NOT NULL     -- (a follow-up replaces the task's own)
) WITHOUT ROWID;`

// remoteRun is a row of remote_runs.
type remoteRun struct {
	task   string
	run    int
	worker string
	seen   uint64
}

// newRemoteRun records the next run of task as offered and returns its
// number, and the worker of the run before it (empty for the first).
func (s *Store) newRemoteRun(ctx context.Context, task string) (run int, last string, err error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, "", fault.Wrap(fault.Unavailable, err, "failed to record the run of task "+task)
	}
	defer tx.Rollback()
	err = tx.QueryRowContext(ctx, `SELECT run, worker FROM remote_runs WHERE task_id = ? ORDER BY run DESC LIMIT 1`, task).Scan(&run, &last)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return 0, "", fault.Wrap(fault.Unavailable, err, "failed to record the run of task "+task)
	}
	run++
	if _, err := tx.ExecContext(ctx, `INSERT INTO remote_runs (task_id, run) VALUES (?, ?)`, task, run); err != nil {
		return 0, "", fault.Wrap(fault.Unavailable, err, "failed to record the run of task "+task)
	}
	return run, last, tx.Commit()
}

// sawRemote records that task's run was read up to seq, by worker when
// it is not empty.
func (s *Store) sawRemote(ctx context.Context, task string, run int, seq uint64, worker string) error {
	_, err := s.db.ExecContext(ctx, `UPDATE remote_runs SET seen = ?, worker = CASE WHEN ? = '' THEN worker ELSE ? END
		WHERE task_id = ? AND run = ?`, int64(seq), worker, worker, task, run)
	return err
}

// endRemote records that task's run ended (or will not be read on).
func (s *Store) endRemote(ctx context.Context, task string, run int) error {
	_, err := s.db.ExecContext(ctx, `UPDATE remote_runs SET ended = 1 WHERE task_id = ? AND run = ?`, task, run)
	return err
}

// openRemoteRuns are the runs not ended yet, oldest first.
func (s *Store) openRemoteRuns(ctx context.Context) ([]remoteRun, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT task_id, run, worker, seen FROM remote_runs WHERE ended = 0 ORDER BY task_id, run`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []remoteRun
	for rows.Next() {
		var r remoteRun
		var seen int64
		if err := rows.Scan(&r.task, &r.run, &r.worker, &seen); err != nil {
			return nil, err
		}
		r.seen = uint64(seen)
		out = append(out, r)
	}
	return out, rows.Err()
}

// keepPrompt records instructions as task's first, unless it has them.
func (s *Store) keepPrompt(ctx context.Context, task, instructions string) error {
	_, err := s.db.ExecContext(ctx, `INSERT OR IGNORE INTO remote_prompts (task_id, instructions) VALUES (?, ?)`, task, instructions)
	return err
}

// prompt is task's first instructions as keepPrompt recorded them; ok
// is false when none were (its first run was not offered to the fleet).
func (s *Store) prompt(ctx context.Context, task string) (instructions string, ok bool, err error) {
	err = s.db.QueryRowContext(ctx, `SELECT instructions FROM remote_prompts WHERE task_id = ?`, task).Scan(&instructions)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	return instructions, err == nil, err
}

// keepOffer records the assignment of a run, before it is offered.
func (s *Store) keepOffer(ctx context.Context, a Assignment) error {
	b, err := json.Marshal(a)
	if err != nil {
		return err
	}
	_, err = s.db.ExecContext(ctx, `INSERT OR REPLACE INTO remote_offers (task_id, run, assignment) VALUES (?, ?, ?)`, a.Task, a.Run, string(b))
	return err
}

// offerOf is the assignment keepOffer recorded of task's run; ok is false
// when none was.
func (s *Store) offerOf(ctx context.Context, task string, run int) (a Assignment, ok bool, err error) {
	var b string
	err = s.db.QueryRowContext(ctx, `SELECT assignment FROM remote_offers WHERE task_id = ? AND run = ?`, task, run).Scan(&b)
	if errors.Is(err, sql.ErrNoRows) {
		return a, false, nil
	}
	if err != nil {
		return a, false, err
	}
	return a, true, json.Unmarshal([]byte(b), &a)
}
