package orchestrator

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/orchestrator/agent"
	"github.com/sudocode/sudocode/internal/sqlitex"
)

// DBFileName is the database file inside an orchestrator data directory.
const DBFileName = "orchestrator.db"

const schema = `CREATE TABLE IF NOT EXISTS tasks (
	id           TEXT PRIMARY KEY,
	tool         TEXT NOT NULL,
	description  TEXT NOT NULL,
	instructions TEXT NOT NULL,
	branch       TEXT NOT NULL,
	worktree     TEXT NOT NULL,
	base_sha     TEXT NOT NULL,
	config       TEXT NOT NULL, -- JSON or ''
	status       TEXT NOT NULL,
	result       TEXT NOT NULL, -- JSON or ''
	error        TEXT NOT NULL, -- JSON {type, details} or ''
	session_id   TEXT NOT NULL,
	pid          INTEGER NOT NULL,
	owner_pid    INTEGER NOT NULL,
	actor        TEXT NOT NULL,
	created_at   TEXT NOT NULL, -- RFC3339Nano UTC
	updated_at   TEXT NOT NULL,
	started_at   TEXT NOT NULL DEFAULT '', -- RFC3339Nano UTC or ''
	finished_at  TEXT NOT NULL DEFAULT '',
	issue_id     TEXT NOT NULL DEFAULT '', -- the tracker issue the task works on, or ''
	merged_commit  TEXT NOT NULL DEFAULT '', -- the commit its merge made, or ''
	merge_conflict TEXT NOT NULL DEFAULT ''  -- JSON list of the files its last refused merge conflicted on, or ''
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS tasks_created ON tasks(created_at);
CREATE TABLE IF NOT EXISTS events (
	task_id TEXT NOT NULL,
	seq     INTEGER NOT NULL,
	time    TEXT NOT NULL,
	kind    TEXT NOT NULL,
	data    TEXT NOT NULL, -- the agent.Event as JSON
	PRIMARY KEY (task_id, seq)
) WITHOUT ROWID;`

// StoredEvent is an event of a task's log with its sequence number (1, 2, …).
type StoredEvent struct {
	Seq   int64       `json:"seq"`
	Event agent.Event `json:"event"`
}

// Store keeps tasks and their event logs in one SQLite file.
type Store struct {
	db *sql.DB
}

// OpenStore opens (creating if needed) the store in dir and recovers tasks
// a previous server left running: every in_progress task whose server
// process is gone is marked failed (its agent's process group, if it is
// still alive, is killed, since nothing reads its output any more).
func OpenStore(ctx context.Context, dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fault.Wrap(fault.Unavailable, err, "failed to open the task store")
	}
	path := filepath.Join(dir, DBFileName)
	db, err := sqlitex.Open(ctx, path, 4, schema+reviewsSchema+remoteRunsSchema+readyRunsSchema+codeCommentsSchema+mergeIntentsSchema)
	if err != nil {
		return nil, fault.Wrap(fault.Unavailable, err, "failed to open the task store at "+path)
	}
	s := &Store{db: db}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, fault.Wrap(fault.Unavailable, err, "failed to upgrade the task store at "+path)
	}
	if err := s.recover(ctx, time.Now()); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// addedColumns are the tasks columns added after the first schema, with
// their definitions; migrate adds those a database made earlier lacks.
var addedColumns = [][2]string{
	{"started_at", "TEXT NOT NULL DEFAULT ''"},
	{"finished_at", "TEXT NOT NULL DEFAULT ''"},
	{"issue_id", "TEXT NOT NULL DEFAULT ''"},
	{"merged_commit", "TEXT NOT NULL DEFAULT ''"},
	{"merge_conflict", "TEXT NOT NULL DEFAULT ''"},
}

// migrate adds missing columns inside one immediate transaction, so that
// two servers opening an old database at once do not both add them.
func (s *Store) migrate(ctx context.Context) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, `SELECT name FROM pragma_table_info('tasks')`)
	if err != nil {
		return err
	}
	have := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			rows.Close()
			return err
		}
		have[name] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, c := range addedColumns {
		if !have[c[0]] {
			if _, err := tx.ExecContext(ctx, `ALTER TABLE tasks ADD COLUMN `+c[0]+` `+c[1]); err != nil {
				return err
			}
		}
	}
	// The issue's tasks and their usage (issue_usage.go) are read by issue
	// on every show and every page of the board.
	if _, err := tx.ExecContext(ctx, `CREATE INDEX IF NOT EXISTS tasks_issue ON tasks(issue_id)`); err != nil {
		return err
	}
	if err := addIssueDuties(ctx, tx); err != nil {
		return err
	}
	return tx.Commit()
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// processAlive reports whether a process with pid exists.
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// ownsGroup reports whether pid is alive, leads its process group and runs
// in worktree: a check that a recorded agent pid was not reused by an
// unrelated process before its group is killed.
func ownsGroup(pid int, worktree string) bool {
	if pid <= 0 || worktree == "" || !processAlive(pid) {
		return false
	}
	if pgid, err := syscall.Getpgid(pid); err != nil || pgid != pid {
		return false
	}
	cwd, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/cwd")
	return err == nil && filepath.Clean(cwd) == filepath.Clean(worktree)
}

func (s *Store) recover(ctx context.Context, now time.Time) error {
	tasks, err := s.List(ctx)
	if err != nil {
		return err
	}
	open, err := s.openRemoteRuns(ctx)
	if err != nil {
		return err
	}
	remote := map[string]bool{}
	for _, r := range open {
		remote[r.task] = true
	}
	for _, t := range tasks {
		if t.Status != StatusInProgress && t.Status != StatusPending {
			continue
		}
		// A worker runs it, and the next coordinator reads on.
		if remote[t.ID] {
			continue
		}
		// Another live server owns it (several servers may share the file).
		if t.OwnerPID != os.Getpid() && processAlive(t.OwnerPID) {
			continue
		}
		details := "the server stopped while the agent was running"
		if ownsGroup(t.PID, t.WorktreePath) {
			_ = syscall.Kill(-t.PID, syscall.SIGKILL)
			details += "; its orphaned agent process group was killed"
		}
		t.Status = StatusFailed
		t.Error = &TaskError{Type: ErrTypeServerStopped, Details: because(details)}
		t.PID, t.OwnerPID = 0, 0
		t.UpdatedAt = now
		t.FinishedAt = &now
		if err := s.Put(ctx, t); err != nil {
			return err
		}
	}
	return nil
}

func nullJSON(b json.RawMessage) string {
	if len(b) == 0 {
		return ""
	}
	return string(b)
}

// Put inserts or replaces t.
func (s *Store) Put(ctx context.Context, t Task) error { return put(ctx, s.db, t) }

// put saves t through db.
func put(ctx context.Context, db execer, t Task) error {
	errJSON := ""
	if t.Error != nil {
		b, err := json.Marshal(t.Error)
		if err != nil {
			return fault.Wrap(fault.Internal, err, "failed to encode the task error")
		}
		errJSON = string(b)
	}
	conflict := ""
	if len(t.MergeConflict) > 0 {
		b, _ := json.Marshal(t.MergeConflict)
		conflict = string(b)
	}
	_, err := db.ExecContext(ctx, `INSERT OR REPLACE INTO tasks
		(`+taskCols+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		t.ID, t.Agent, t.Description, t.Instructions, t.Branch, t.WorktreePath, t.BaseSHA, nullJSON(t.Config),
		string(t.Status), nullJSON(t.Result), errJSON, t.SessionID, t.PID, t.OwnerPID, t.Actor,
		t.CreatedAt.UTC().Format(time.RFC3339Nano), t.UpdatedAt.UTC().Format(time.RFC3339Nano),
		formatTime(t.StartedAt), formatTime(t.FinishedAt), t.IssueID, t.MergedCommit, conflict)
	if err != nil {
		return fault.Wrap(fault.Unavailable, err, "failed to save task "+t.ID)
	}
	return nil
}

const taskCols = `id, tool, description, instructions, branch, worktree, base_sha, config, status, result, error, session_id, pid, owner_pid, actor, created_at, updated_at, started_at, finished_at, issue_id, merged_commit, merge_conflict`

func formatTime(t *time.Time) string {
	if t == nil {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

func parseTime(s string) *time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return nil
	}
	return &t
}

func scanTask(sc interface{ Scan(...any) error }) (Task, error) {
	var t Task
	var cfg, status, result, errJSON, created, updated, started, finished, conflict string
	if err := sc.Scan(&t.ID, &t.Agent, &t.Description, &t.Instructions, &t.Branch, &t.WorktreePath, &t.BaseSHA,
		&cfg, &status, &result, &errJSON, &t.SessionID, &t.PID, &t.OwnerPID, &t.Actor, &created, &updated, &started, &finished, &t.IssueID,
		&t.MergedCommit, &conflict); err != nil {
		return Task{}, err
	}
	if conflict != "" {
		_ = json.Unmarshal([]byte(conflict), &t.MergeConflict)
	}
	t.Status = Status(status)
	if cfg != "" {
		t.Config = json.RawMessage(cfg)
	}
	if result != "" {
		t.Result = json.RawMessage(result)
	}
	if errJSON != "" {
		t.Error = new(TaskError)
		if err := json.Unmarshal([]byte(errJSON), t.Error); err != nil {
			return Task{}, err
		}
	}
	t.CreatedAt, _ = time.Parse(time.RFC3339Nano, created)
	t.UpdatedAt, _ = time.Parse(time.RFC3339Nano, updated)
	t.StartedAt, t.FinishedAt = parseTime(started), parseTime(finished)
	return t, nil
}

// Get returns the task with id.
func (s *Store) Get(ctx context.Context, id string) (Task, error) {
	t, err := scanTask(s.db.QueryRowContext(ctx, `SELECT `+taskCols+` FROM tasks WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Task{}, fault.New(fault.NotFound, "task %s not found", id)
	}
	if err != nil {
		return Task{}, fault.Wrap(fault.Unavailable, err, "failed to read task "+id)
	}
	return t, nil
}

// List returns every task, oldest first.
func (s *Store) List(ctx context.Context) ([]Task, error) {
	return s.query(ctx, `SELECT `+taskCols+` FROM tasks ORDER BY created_at, id`)
}

// query returns the tasks a query of the columns taskCols selects.
func (s *Store) query(ctx context.Context, query string, args ...any) ([]Task, error) {
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fault.Wrap(fault.Unavailable, err, "failed to list tasks")
	}
	defer rows.Close()
	var out []Task
	for rows.Next() {
		t, err := scanTask(rows)
		if err != nil {
			return nil, fault.Wrap(fault.Unavailable, err, "failed to list tasks")
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fault.Wrap(fault.Unavailable, err, "failed to list tasks")
	}
	return out, nil
}

// LastSeq returns the highest event sequence number of a task (0 if none).
func (s *Store) LastSeq(ctx context.Context, taskID string) (int64, error) {
	var n sql.NullInt64
	if err := s.db.QueryRowContext(ctx, `SELECT MAX(seq) FROM events WHERE task_id = ?`, taskID).Scan(&n); err != nil {
		return 0, fault.Wrap(fault.Unavailable, err, "failed to read the log of task "+taskID)
	}
	return n.Int64, nil
}

// rowsPerInsert is how many events one multi-row INSERT carries (5
// parameters each, well under SQLite's 32766 variable limit).
const rowsPerInsert = 200

// AppendEvents appends events to a task's log in one (immediate, so
// writers never interleave) transaction with multi-row inserts, numbering
// them after the log's current last seq. It returns the new last seq.
func (s *Store) AppendEvents(ctx context.Context, taskID string, events []agent.Event) (int64, error) {
	if len(events) == 0 {
		return s.LastSeq(ctx, taskID)
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fault.Wrap(fault.Unavailable, err, "failed to store events")
	}
	defer tx.Rollback()
	var last sql.NullInt64
	if err := tx.QueryRowContext(ctx, `SELECT MAX(seq) FROM events WHERE task_id = ?`, taskID).Scan(&last); err != nil {
		return 0, fault.Wrap(fault.Unavailable, err, "failed to store events")
	}
	firstSeq := last.Int64 + 1
	var full *sql.Stmt
	args := make([]any, 0, 5*rowsPerInsert)
	for start := 0; start < len(events); start += rowsPerInsert {
		chunk := events[start:min(start+rowsPerInsert, len(events))]
		args = args[:0]
		for i, e := range chunk {
			data, err := json.Marshal(e)
			if err != nil {
				return 0, fault.Wrap(fault.Internal, err, "failed to encode an event")
			}
			args = append(args, taskID, firstSeq+int64(start+i), e.Time.UTC().Format(time.RFC3339Nano), e.Kind, string(data))
		}
		if len(chunk) == rowsPerInsert {
			if full == nil {
				if full, err = tx.PrepareContext(ctx, insertSQL(rowsPerInsert)); err != nil {
					return 0, fault.Wrap(fault.Unavailable, err, "failed to store events")
				}
			}
			_, err = full.ExecContext(ctx, args...)
		} else {
			_, err = tx.ExecContext(ctx, insertSQL(len(chunk)), args...)
		}
		if err != nil {
			return 0, fault.Wrap(fault.Unavailable, err, "failed to store events")
		}
	}
	if err := tx.Commit(); err != nil {
		return 0, fault.Wrap(fault.Unavailable, err, "failed to store events")
	}
	return firstSeq + int64(len(events)) - 1, nil
}

func insertSQL(n int) string {
	var sb strings.Builder
	sb.WriteString(`INSERT INTO events (task_id, seq, time, kind, data) VALUES `)
	for i := range n {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString("(?,?,?,?,?)")
	}
	return sb.String()
}

// Events returns a task's events with seq > since, in order; limit <= 0
// means all.
func (s *Store) Events(ctx context.Context, taskID string, since int64, limit int) ([]StoredEvent, error) {
	q := `SELECT seq, data FROM events WHERE task_id = ? AND seq > ? ORDER BY seq`
	args := []any{taskID, since}
	if limit > 0 {
		q += ` LIMIT ?`
		args = append(args, limit)
	}
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fault.Wrap(fault.Unavailable, err, "failed to read the log of task "+taskID)
	}
	defer rows.Close()
	var out []StoredEvent
	for rows.Next() {
		var se StoredEvent
		var data string
		if err := rows.Scan(&se.Seq, &data); err != nil {
			return nil, fault.Wrap(fault.Unavailable, err, "failed to read the log of task "+taskID)
		}
		if err := json.Unmarshal([]byte(data), &se.Event); err != nil {
			return nil, fault.Wrap(fault.Internal, err, fmt.Sprintf("bad event %d of task %s", se.Seq, taskID))
		}
		out = append(out, se)
	}
	return out, rows.Err()
}
