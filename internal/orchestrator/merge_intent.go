package orchestrator

import (
	"context"
	"database/sql"
	"errors"
)

// mergeIntentsSchema keeps the merge a task is about to make: the commit
// the checkout's branch is moved to, recorded before it moves. A process
// killed between the move and the task's record as merged leaves it
// here, and the next merge of the task finds its work already in the
// branch (landedMerge) and finishes the record instead of merging again
// (a squash would otherwise make a second, empty commit).
const mergeIntentsSchema = `CREATE TABLE IF NOT EXISTS merge_intents (
	task_id TEXT PRIMARY KEY,
	commit_id TEXT NOT NULL, -- what the branch moves to
	base TEXT NOT NULL       -- the branch, as the merge's note names it
) WITHOUT ROWID;`

func (s *Store) putMergeIntent(ctx context.Context, task, commit, base string) error {
	_, err := s.db.ExecContext(ctx, `INSERT OR REPLACE INTO merge_intents (task_id, commit_id, base) VALUES (?, ?, ?)`, task, commit, base)
	return err
}

func (s *Store) dropMergeIntent(ctx context.Context, task string) error {
	_, err := s.db.ExecContext(ctx, `DELETE FROM merge_intents WHERE task_id = ?`, task)
	return err
}

// mergeIntent is task's recorded merge; ok is false when none is.
func (s *Store) mergeIntent(ctx context.Context, task string) (commit, base string, ok bool, err error) {
	err = s.db.QueryRowContext(ctx, `SELECT commit_id, base FROM merge_intents WHERE task_id = ?`, task).Scan(&commit, &base)
	if errors.Is(err, sql.ErrNoRows) {
		return "", "", false, nil
	}
	return commit, base, err == nil, err
}

// landedMerge is task t's merge that an earlier process made in the
// checkout at top and did not live to record: its commit is in the
// checkout's HEAD. An intent whose commit is not there never landed and
// is dropped.
func (o *Orchestrator) landedMerge(ctx context.Context, t Task, top string) (mergePlan, bool, error) {
	commit, base, ok, err := o.store.mergeIntent(ctx, t.ID)
	if err != nil || !ok {
		return mergePlan{}, false, err
	}
	if _, err := git(ctx, top, "merge-base", "--is-ancestor", commit, "HEAD"); err == nil {
		return mergePlan{commit: commit, base: base}, true, nil
	}
	return mergePlan{}, false, o.store.dropMergeIntent(ctx, t.ID)
}
