package app

import (
	"context"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/orchestrator"
	"github.com/sudocode/sudocode/internal/userenv"
)

// taskReads is what the loop hands on of its orchestrator: the reads of
// the tasks and their views, following them, and the collection of ended
// tasks' leftovers (GC), which owes no issue anything.
type taskReads interface {
	Get(ctx context.Context, id string) (orchestrator.Task, error)
	List(ctx context.Context) ([]orchestrator.Task, error)
	ListPage(ctx context.Context, status orchestrator.Status, after *orchestrator.TaskKey, limit int) (orchestrator.TaskPage, error)
	Newest(ctx context.Context, n int) ([]orchestrator.Task, int, error)
	Logs(ctx context.Context, id string, since int64, limit int) ([]orchestrator.StoredEvent, error)
	LastSeq(ctx context.Context, id string) (int64, error)
	Report(ctx context.Context, id string) (orchestrator.Report, error)
	RecordedReport(ctx context.Context, id string) (orchestrator.Report, error)
	Diff(ctx context.Context, id string) (orchestrator.Diff, error)
	Status(ctx context.Context) (orchestrator.Overview, error)
	Checkout(ctx context.Context) (orchestrator.Checkout, error)
	Repo() string
	Env() userenv.Env
	Subscribe(fn func(orchestrator.Change)) (unsubscribe func())
	Wait(ctx context.Context, id string) error
	GC(ctx context.Context) (orchestrator.GCResult, error)
}

// Create makes a task of no issue (orchestrator.Create); a task of an
// issue is started with Start, which puts the issue in progress.
func (l *Loop) Create(ctx context.Context, in orchestrator.CreateInput) (orchestrator.Task, error) {
	if in.IssueID != "" {
		return orchestrator.Task{}, fault.New(fault.Internal, "a task of issue %s is started from its issue (Loop.Start), not created bare", in.IssueID)
	}
	return l.orch.Create(ctx, in)
}
