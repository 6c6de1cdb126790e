package orchestrator

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/sudocode/sudocode/internal/fault"
)

// Review is one set of follow-up instructions a task's agent was started
// with (Update with Instructions): what a reviewer asked of it. Each is
// kept in the task store with the run it started, in one transaction, so
// that the task's issue can record every review exactly once
// (DutyNoteReview), whichever process gets there.
type Review struct {
	TaskID       string
	Seq          int // 1, 2, … per task
	Instructions string
	SentAt       time.Time
}

// DutyNoteReview is the duty of recording a task's review seq on its
// issue.
func DutyNoteReview(seq int) IssueDuty { return IssueDuty(fmt.Sprintf("review:%d", seq)) }

const reviewsSchema = `CREATE TABLE IF NOT EXISTS task_reviews (
	task_id      TEXT NOT NULL,
	seq          INTEGER NOT NULL,
	instructions TEXT NOT NULL,
	sent_at      TEXT NOT NULL, -- RFC3339Nano UTC
	PRIMARY KEY (task_id, seq)
) WITHOUT ROWID;`

// putStarted saves t, now running, and, when review is not empty, records
// it as the task's next review: both or neither.
func (s *Store) putStarted(ctx context.Context, t Task, review string) error {
	if review == "" {
		return s.Put(ctx, t)
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fault.Wrap(fault.Unavailable, err, "failed to save task "+t.ID)
	}
	defer tx.Rollback()
	if err := put(ctx, tx, t); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO task_reviews (task_id, seq, instructions, sent_at)
		SELECT ?, coalesce(max(seq), 0) + 1, ?, ? FROM task_reviews WHERE task_id = ?`,
		t.ID, review, t.UpdatedAt.UTC().Format(time.RFC3339Nano), t.ID); err != nil {
		return fault.Wrap(fault.Unavailable, err, "failed to record the review of task "+t.ID)
	}
	if err := tx.Commit(); err != nil {
		return fault.Wrap(fault.Unavailable, err, "failed to save task "+t.ID)
	}
	return nil
}

// UndoneReviews returns the reviews of tasks of issues that their issue
// does not record yet, in the order they were sent; only taskID's when it
// is not empty.
func (s *Store) UndoneReviews(ctx context.Context, taskID string) ([]Review, error) {
	// One task's reviews are a range of the primary key (a follow-up
	// reads them); every task's, a scan (FollowIssues reads them once).
	which, args := "", []any(nil)
	if taskID != "" {
		which, args = "r.task_id = ? AND ", []any{taskID}
	}
	rows, err := s.db.QueryContext(ctx, `SELECT r.task_id, r.seq, r.instructions, r.sent_at
		FROM task_reviews r JOIN tasks t ON t.id = r.task_id
		WHERE `+which+`t.issue_id != ''
		AND NOT EXISTS (SELECT 1 FROM issue_duties d WHERE d.task_id = r.task_id AND d.duty = 'review:' || r.seq AND d.done = 1)
		ORDER BY r.sent_at, r.task_id, r.seq`, args...)
	if err != nil {
		return nil, fault.Wrap(fault.Unavailable, err, "failed to read the reviews of tasks")
	}
	defer rows.Close()
	var out []Review
	for rows.Next() {
		var r Review
		var sent string
		if err := rows.Scan(&r.TaskID, &r.Seq, &r.Instructions, &sent); err != nil {
			return nil, fault.Wrap(fault.Unavailable, err, "failed to read the reviews of tasks")
		}
		r.SentAt, _ = time.Parse(time.RFC3339Nano, sent)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fault.Wrap(fault.Unavailable, err, "failed to read the reviews of tasks")
	}
	return out, nil
}

// execer is a database or a transaction.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}
