package orchestrator

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/tracker"
)

// CodeComment is a reviewer's comment on a line of a task's changes, kept
// with the task in its store. It is anchored to its code as spec feedback is
// (tracker.Anchor: the line, its text, the lines around it), so that when
// the agent changes the file in a follow-up the comment moves with its
// line, or reads stale when the line is gone (CodeComments).
type CodeComment struct {
	ID     string `json:"id"`
	TaskID string `json:"task_id"`
	File   string `json:"file"` // slash-separated, relative to the worktree
	// Line is where the comment's code is now (Anchor.LineNumber); Code is
	// that line's text as it was commented.
	Line   int            `json:"line"`
	Code   string         `json:"code"`
	Body   string         `json:"body"`
	State  CommentState   `json:"state"`
	Anchor tracker.Anchor `json:"anchor"`
	// Stale: the commented code is no longer in the file (Anchor's status).
	Stale     bool      `json:"stale"`
	CreatedAt time.Time `json:"created_at"`
	// SentAt is when the comment went to the agent, with the review whose
	// number is Review (0 while open).
	SentAt *time.Time `json:"sent_at"`
	Review int        `json:"review"`
}

// CommentState is whether a code comment was sent to the agent yet.
type CommentState string

// The states of a code comment.
const (
	CommentOpen CommentState = "open"
	CommentSent CommentState = "sent"
)

const codeCommentsSchema = `CREATE TABLE IF NOT EXISTS task_code_comments (
	id         TEXT PRIMARY KEY,
	task_id    TEXT NOT NULL,
	file       TEXT NOT NULL,
	code       TEXT NOT NULL,     -- the line's text when commented
	body       TEXT NOT NULL,
	anchor     TEXT NOT NULL,     -- tracker.Anchor as JSON, relocated as the file changes
	state      TEXT NOT NULL,     -- open | sent
	review     INTEGER NOT NULL DEFAULT 0, -- task_reviews.seq it was sent with
	created_at TEXT NOT NULL,     -- RFC3339Nano UTC
	sent_at    TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS task_code_comments_task ON task_code_comments (task_id, created_at);`

const codeCommentColumns = `id, task_id, file, code, body, anchor, state, review, created_at, sent_at`

func (s *Store) addCodeComment(ctx context.Context, c CodeComment) error {
	a, err := json.Marshal(c.Anchor)
	if err != nil {
		return fault.Wrap(fault.Internal, err, "failed to encode a comment's anchor")
	}
	_, err = s.db.ExecContext(ctx, `INSERT INTO task_code_comments (`+codeCommentColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, '')`,
		c.ID, c.TaskID, c.File, c.Code, c.Body, string(a), c.State, c.CreatedAt.UTC().Format(time.RFC3339Nano))
	if err != nil {
		return fault.Wrap(fault.Unavailable, err, "failed to save the comment on task "+c.TaskID)
	}
	return nil
}

// codeComments returns task's comments, oldest first.
func (s *Store) codeComments(ctx context.Context, task string) ([]CodeComment, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+codeCommentColumns+` FROM task_code_comments WHERE task_id = ? ORDER BY created_at, id`, task)
	if err != nil {
		return nil, fault.Wrap(fault.Unavailable, err, "failed to read the comments on task "+task)
	}
	defer rows.Close()
	out := []CodeComment{}
	for rows.Next() {
		c, err := scanCodeComment(rows)
		if err != nil {
			return nil, fault.Wrap(fault.Unavailable, err, "failed to read the comments on task "+task)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fault.Wrap(fault.Unavailable, err, "failed to read the comments on task "+task)
	}
	return out, nil
}

func scanCodeComment(rows *sql.Rows) (CodeComment, error) {
	var c CodeComment
	var anchor, created, sent string
	if err := rows.Scan(&c.ID, &c.TaskID, &c.File, &c.Code, &c.Body, &anchor, &c.State, &c.Review, &created, &sent); err != nil {
		return c, err
	}
	if err := json.Unmarshal([]byte(anchor), &c.Anchor); err != nil {
		return c, err
	}
	c.CreatedAt, _ = time.Parse(time.RFC3339Nano, created)
	if sent != "" {
		at, _ := time.Parse(time.RFC3339Nano, sent)
		c.SentAt = &at
	}
	c.Line = c.Anchor.LineNumber
	c.Stale = c.Anchor.AnchorStatus == tracker.AnchorStale
	return c, nil
}

// moveCodeComment saves a comment's relocated anchor.
func (s *Store) moveCodeComment(ctx context.Context, id string, a tracker.Anchor) error {
	b, err := json.Marshal(a)
	if err != nil {
		return fault.Wrap(fault.Internal, err, "failed to encode a comment's anchor")
	}
	if _, err := s.db.ExecContext(ctx, `UPDATE task_code_comments SET anchor = ? WHERE id = ?`, string(b), id); err != nil {
		return fault.Wrap(fault.Unavailable, err, "failed to save where comment "+id+" moved")
	}
	return nil
}

// deleteCodeComment removes comment id of task; not found when there is
// none.
func (s *Store) deleteCodeComment(ctx context.Context, task, id string) error {
	res, err := s.db.ExecContext(ctx, `DELETE FROM task_code_comments WHERE task_id = ? AND id = ?`, task, id)
	if err != nil {
		return fault.Wrap(fault.Unavailable, err, "failed to delete comment "+id)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fault.New(fault.NotFound, "task %s has no comment %s", task, id).WithHint("list the task's comments for their ids")
	}
	return nil
}

// markCodeCommentsSent records that the comments ids of task went to its
// agent at when, with the task's latest review.
func (s *Store) markCodeCommentsSent(ctx context.Context, task string, ids []string, when time.Time) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fault.Wrap(fault.Unavailable, err, "failed to mark the comments sent")
	}
	defer tx.Rollback()
	var seq int
	if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(seq), 0) FROM task_reviews WHERE task_id = ?`, task).Scan(&seq); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fault.Wrap(fault.Unavailable, err, "failed to mark the comments sent")
	}
	at := when.UTC().Format(time.RFC3339Nano)
	for _, id := range ids {
		if _, err := tx.ExecContext(ctx, `UPDATE task_code_comments SET state = ?, review = ?, sent_at = ? WHERE task_id = ? AND id = ?`,
			CommentSent, seq, at, task, id); err != nil {
			return fault.Wrap(fault.Unavailable, err, "failed to mark the comments sent")
		}
	}
	if err := tx.Commit(); err != nil {
		return fault.Wrap(fault.Unavailable, err, "failed to mark the comments sent")
	}
	return nil
}
