package orchestrator

import (
	"context"
	"errors"
	"os"
	"path/filepath"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/sqlitex"
	"github.com/sudocode/sudocode/internal/tracker"
)

// ByIssue returns the tasks started on issueID, oldest first.
func (s *Store) ByIssue(ctx context.Context, issueID string) ([]Task, error) {
	return s.query(ctx, `SELECT `+taskCols+` FROM tasks WHERE issue_id = ? ORDER BY created_at, id`, issueID)
}

// IssueTasks lists the tasks started on issueID in the repository holding
// dir, from the task store sudocode mcp agent and serve keep there (see
// DataDir). It only reads: unlike OpenStore it recovers nothing, so the
// tracker can call it on every show. No store yet is no task.
func IssueTasks(ctx context.Context, dir, issueID string) ([]tracker.TaskRef, error) {
	s, err := readStore(ctx, dir)
	if s == nil || err != nil {
		return nil, err
	}
	defer s.Close()
	ts, err := s.ByIssue(ctx, issueID)
	if err != nil {
		return nil, err
	}
	out := make([]tracker.TaskRef, len(ts))
	for i, t := range ts {
		out[i] = tracker.TaskRef{ID: t.ID, Tool: t.Agent, Status: string(t.Status), State: t.State(),
			StateText: StateText(t.State()), Branch: t.Branch, CreatedAt: t.CreatedAt}
	}
	return out, nil
}

// readStore opens the task store of the repository holding dir to read
// it, recovering nothing; nil when there is none.
func readStore(ctx context.Context, dir string) (*Store, error) {
	data, err := lookupDataDir(ctx, dir)
	if err != nil || data == "" {
		return nil, nil // not in a git repository: no orchestrator either
	}
	path := filepath.Join(data, DBFileName)
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	db, err := sqlitex.Open(ctx, path, 1, schema)
	if err != nil {
		return nil, fault.Wrap(fault.Unavailable, err, "failed to open the task store at "+path)
	}
	s := &Store{db: db}
	if err := s.migrate(ctx); err != nil {
		s.Close()
		return nil, fault.Wrap(fault.Unavailable, err, "failed to upgrade the task store at "+path)
	}
	return s, nil
}
