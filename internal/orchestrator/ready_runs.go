package orchestrator

import (
	"context"
	"encoding/json"
	"os"
	"sync"
)

// readyRunsSchema keeps the tasks run_ready started and has not finished
// (merged, or recorded why not): a call that ends before its tasks do
// (its client gone, its server killed) leaves them to the next call,
// which takes them up, so that a DAG worked by run_ready goes on after a
// restart instead of stopping at issues left in progress, unmerged.
const readyRunsSchema = `CREATE TABLE IF NOT EXISTS ready_runs (
	task_id   TEXT PRIMARY KEY,
	issue_id  TEXT NOT NULL,
	merge     TEXT NOT NULL,     -- the call's MergeInput, as JSON
	owner_pid INTEGER NOT NULL   -- the process of the call that holds it
) WITHOUT ROWID;`

// readyRun is a task a run_ready call holds.
type readyRun struct {
	task, issue string
	merge       MergeInput
}

// readyHeld are the tasks the live run_ready calls of this process hold:
// a call takes up only tasks no live call holds.
type readyHeld struct {
	mu    sync.Mutex
	tasks map[string]bool
}

func (h *readyHeld) hold(task string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.tasks == nil {
		h.tasks = map[string]bool{}
	}
	if h.tasks[task] {
		return false
	}
	h.tasks[task] = true
	return true
}

func (h *readyHeld) release(tasks []string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, t := range tasks {
		delete(h.tasks, t)
	}
}

// keepReadyRun records that a run_ready call of this process holds task.
func (s *Store) keepReadyRun(ctx context.Context, r readyRun) error {
	m, err := json.Marshal(r.merge)
	if err != nil {
		return err
	}
	_, err = s.db.ExecContext(ctx, `INSERT OR REPLACE INTO ready_runs (task_id, issue_id, merge, owner_pid) VALUES (?, ?, ?, ?)`,
		r.task, r.issue, string(m), os.Getpid())
	return err
}

// dropReadyRun records that task is finished with.
func (s *Store) dropReadyRun(ctx context.Context, task string) error {
	_, err := s.db.ExecContext(ctx, `DELETE FROM ready_runs WHERE task_id = ?`, task)
	return err
}

// orphanReadyRuns takes over, for this process, the tasks whose run_ready
// call ended: its process is gone, or it is this one and no live call
// holds the task (held.hold, which the caller releases). A task another
// process takes over first is left to it.
func (s *Store) orphanReadyRuns(ctx context.Context, held *readyHeld) ([]readyRun, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT task_id, issue_id, merge, owner_pid FROM ready_runs ORDER BY task_id`)
	if err != nil {
		return nil, err
	}
	type row struct {
		r     readyRun
		owner int
	}
	var all []row
	for rows.Next() {
		var x row
		var m string
		if err := rows.Scan(&x.r.task, &x.r.issue, &m, &x.owner); err != nil {
			rows.Close()
			return nil, err
		}
		_ = json.Unmarshal([]byte(m), &x.r.merge) // unreadable: the default merge
		all = append(all, x)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	me := os.Getpid()
	var out []readyRun
	for _, x := range all {
		if x.owner != me && processAlive(x.owner) || !held.hold(x.r.task) {
			continue
		}
		res, err := s.db.ExecContext(ctx, `UPDATE ready_runs SET owner_pid = ? WHERE task_id = ? AND owner_pid = ?`, me, x.r.task, x.owner)
		if err != nil {
			held.release([]string{x.r.task})
			return out, err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			held.release([]string{x.r.task}) // another process took it first
			continue
		}
		out = append(out, x.r)
	}
	return out, nil
}
