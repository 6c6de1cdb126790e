package mcpagent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/sudocode/sudocode/internal/orchestrator"
	"github.com/sudocode/sudocode/internal/plural"
)

// statusView is agent://status.
type statusView struct {
	Server   string                `json:"server"`
	Version  string                `json:"version"`
	Project  string                `json:"project"`
	Overview orchestrator.Overview `json:"overview"`
}

func (h *handlers) status(ctx context.Context) (statusView, error) {
	ov, err := h.tasks.Status(ctx)
	return statusView{Server: Name, Version: h.opts.Version, Project: h.tasks.Repo(), Overview: ov}, err
}

// taskListView is task://list and agent://tasks: every task, oldest first,
// up to maxListedTasks. A resource takes no parameters beyond its URI, so
// it cannot be paged; a longer list keeps its newest tasks (the ones an
// agent follows), says how many older ones it left out, and points to the
// list_tasks tool, which pages through all of them with cursors.
type taskListView struct {
	Count   int           `json:"count"` // tasks in all
	Tasks   []taskSummary `json:"tasks"`
	Omitted int           `json:"omitted,omitempty"` // older tasks left out
	Hint    string        `json:"hint,omitempty"`
}

// maxListedTasks bounds the task lists of resources.
const maxListedTasks = 1000

// listedTasks is the newest maxListedTasks tasks, oldest first, the total
// and how many older ones are left out, with the hint to page them.
func (h *handlers) listedTasks(ctx context.Context) (tasks []taskSummary, total, omitted int, hint string, err error) {
	ts, total, err := h.tasks.Newest(ctx, maxListedTasks)
	if err != nil {
		return nil, 0, 0, "", err
	}
	if omitted = total - len(ts); omitted > 0 {
		hint = fmt.Sprintf("the newest %d of %d tasks; page through all of them with the list_tasks tool", len(ts), total)
	}
	return summarizeAll(ts), total, omitted, hint, nil
}

func (h *handlers) taskList(ctx context.Context) (taskListView, error) {
	tasks, total, omitted, hint, err := h.listedTasks(ctx)
	return taskListView{Count: total, Tasks: tasks, Omitted: omitted, Hint: hint}, err
}

// recentEvents is how many log lines task://{id} shows.
const recentEvents = 20

// taskView is task://{id}: the task, its report (timing, outcome, changes)
// and the tail of its log.
type taskView struct {
	Task      orchestrator.Task   `json:"task"`
	Report    orchestrator.Report `json:"report"`
	RecentLog []string            `json:"recent_log"`
}

func (h *handlers) task(ctx context.Context, id string) (taskView, error) {
	t, err := h.owned(ctx, id)
	if err != nil {
		return taskView{}, err
	}
	rep, err := h.tasks.Report(ctx, id)
	if err != nil {
		return taskView{}, err
	}
	lines, _, err := h.tail(ctx, id, recentEvents)
	return taskView{Task: t, Report: rep, RecentLog: lines}, err
}

// tail returns the last n log lines of task id and how many came before.
func (h *handlers) tail(ctx context.Context, id string, n int64) ([]string, int64, error) {
	last, err := h.tasks.LastSeq(ctx, id)
	if err != nil {
		return nil, 0, err
	}
	since := max(last-n, 0)
	evs, err := h.tasks.Logs(ctx, id, since, 0)
	if err != nil {
		return nil, 0, err
	}
	lines := make([]string, len(evs))
	for i, ev := range evs {
		lines[i] = logLine(ev)
	}
	return lines, since, nil
}

// maxLogLines bounds task://{id}/logs: the newest entries are kept.
const maxLogLines = 1000

func (h *handlers) logs(ctx context.Context, id string) (string, error) {
	t, err := h.owned(ctx, id)
	if err != nil {
		return "", err
	}
	lines, omitted, err := h.tail(ctx, id, maxLogLines)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# task %s (%s) on %s: %s\n", t.ID, t.Status, t.Branch, plural.Count(int(omitted)+len(lines), "log entry", "log entries"))
	if omitted > 0 {
		fmt.Fprintf(&b, "# %s omitted\n", plural.Count(int(omitted), "earlier entry", "earlier entries"))
	}
	for _, l := range lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String(), nil
}

// resultView is task://{id}/result.
type resultView struct {
	TaskID     string                  `json:"taskId"`
	Status     orchestrator.Status     `json:"status"`
	FinishedAt *time.Time              `json:"finished_at,omitempty"`
	Result     json.RawMessage         `json:"result,omitempty"`
	Error      *orchestrator.TaskError `json:"error,omitempty"`
}

func (h *handlers) result(ctx context.Context, id string) (resultView, error) {
	t, err := h.owned(ctx, id)
	return resultView{TaskID: t.ID, Status: t.Status, FinishedAt: t.FinishedAt, Result: t.Result, Error: t.Error}, err
}
