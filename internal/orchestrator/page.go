package orchestrator

import (
	"context"
	"time"

	"github.com/sudocode/sudocode/internal/fault"
)

// TaskKey is a task's position in list order (oldest first, then by id):
// its stored created_at text and its id. Tasks are paged by keyset on it:
// a task's key never changes, so a walk of the list returns each task that
// exists throughout exactly once, whatever is created meanwhile.
type TaskKey struct {
	CreatedAt string `json:"c"`
	ID        string `json:"id"`
}

// KeyOf is t's position in list order.
func KeyOf(t Task) TaskKey {
	return TaskKey{CreatedAt: t.CreatedAt.UTC().Format(time.RFC3339Nano), ID: t.ID}
}

// TaskPage is a page of the task list.
type TaskPage struct {
	Tasks []Task
	Total int  // tasks matching in all
	More  bool // more follow the page
}

// ListPage returns up to limit tasks (with status, when not empty) after
// the position after (nil: from the oldest), oldest first.
func (s *Store) ListPage(ctx context.Context, status Status, after *TaskKey, limit int) (TaskPage, error) {
	cond, args := "1", []any{}
	if status != "" {
		cond, args = "status = ?", append(args, string(status))
	}
	var p TaskPage
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM tasks WHERE `+cond, args...).Scan(&p.Total); err != nil {
		return p, fault.Wrap(fault.Unavailable, err, "failed to list tasks")
	}
	if after != nil {
		cond, args = cond+" AND (created_at, id) > (?, ?)", append(args, after.CreatedAt, after.ID)
	}
	tasks, err := s.query(ctx, `SELECT `+taskCols+` FROM tasks WHERE `+cond+` ORDER BY created_at, id LIMIT ?`, append(args, limit+1)...)
	if err != nil {
		return p, err
	}
	p.More = len(tasks) > limit
	p.Tasks = tasks[:min(len(tasks), limit)]
	return p, nil
}

// Newest returns the newest n tasks, oldest first, and how many there are.
func (s *Store) Newest(ctx context.Context, n int) ([]Task, int, error) {
	var total int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM tasks`).Scan(&total); err != nil {
		return nil, 0, fault.Wrap(fault.Unavailable, err, "failed to list tasks")
	}
	tasks, err := s.query(ctx, `SELECT * FROM (SELECT `+taskCols+` FROM tasks ORDER BY created_at DESC, id DESC LIMIT ?) ORDER BY created_at, id`, n)
	return tasks, total, err
}

// ListPage is the store's ListPage.
func (o *Orchestrator) ListPage(ctx context.Context, status Status, after *TaskKey, limit int) (TaskPage, error) {
	return o.store.ListPage(ctx, status, after, limit)
}

// Newest is the store's Newest.
func (o *Orchestrator) Newest(ctx context.Context, n int) ([]Task, int, error) {
	return o.store.Newest(ctx, n)
}
