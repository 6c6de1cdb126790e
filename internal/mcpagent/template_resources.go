package mcpagent

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/sudocode/sudocode/internal/orchestrator"
	"github.com/sudocode/sudocode/internal/orchestrator/agent"
)

// sessionView is session://{sessionType}/{sessionId}.
type sessionView struct {
	SessionType string        `json:"sessionType"`
	SessionID   string        `json:"sessionId"`
	Resumable   bool          `json:"resumable"` // a task of it is waiting in its worktree
	Tasks       []taskSummary `json:"tasks"`
}

func (h *handlers) session(ctx context.Context, kind, id string) (sessionView, error) {
	kind = strings.ToUpper(kind)
	if _, err := agent.Lookup(kind); err != nil {
		return sessionView{}, badVar("unknown session type %q: want one of %s", strings.ToLower(kind), strings.ToLower(strings.Join(agent.Kinds(), ", ")))
	}
	ts, err := h.tasks.List(ctx)
	if err != nil {
		return sessionView{}, err
	}
	v := sessionView{SessionType: strings.ToLower(kind), SessionID: id, Tasks: []taskSummary{}}
	for _, t := range ts {
		if t.Agent == kind && t.SessionID == id {
			v.Tasks = append(v.Tasks, summarize(t))
			v.Resumable = v.Resumable || (t.Status == orchestrator.StatusWaiting && t.WorktreePath != "")
		}
	}
	if len(v.Tasks) == 0 {
		return v, notFound("no task has session %s", id)
	}
	return v, nil
}

// branchView is branch://{branchName}/tasks.
type branchView struct {
	Branch string        `json:"branch"`
	Tasks  []taskSummary `json:"tasks"`
}

func (h *handlers) branch(ctx context.Context, name string) (branchView, error) {
	name, err := orchestrator.BranchName(name)
	if err != nil {
		return branchView{}, err
	}
	ts, err := h.tasks.List(ctx)
	if err != nil {
		return branchView{}, err
	}
	v := branchView{Branch: name, Tasks: []taskSummary{}}
	for _, t := range ts {
		if t.Branch == name {
			v.Tasks = append(v.Tasks, summarize(t))
		}
	}
	return v, nil
}

// projectView is project://{projectPath}/status.
type projectView struct {
	Project string `json:"project"`
	Head    string `json:"head,omitempty"`
	Branch  string `json:"branch,omitempty"` // empty on a detached HEAD
	// CheckoutChanges counts the uncommitted changes of the user's own
	// checkout, which tasks never touch.
	CheckoutChanges int                   `json:"checkout_changes"`
	Overview        orchestrator.Overview `json:"overview"`
	Tasks           []taskSummary         `json:"tasks"`                   // the newest maxListedTasks, oldest first
	OmittedTasks    int                   `json:"omitted_tasks,omitempty"` // older tasks left out
	Hint            string                `json:"hint,omitempty"`
}

func (h *handlers) project(ctx context.Context, path string) (projectView, error) {
	if !samePath(path, h.tasks.Repo()) {
		return projectView{}, notFound("this server orchestrates %s, not %s", h.tasks.Repo(), path)
	}
	ov, err := h.tasks.Status(ctx)
	if err != nil {
		return projectView{}, err
	}
	tasks, _, omitted, hint, err := h.listedTasks(ctx)
	if err != nil {
		return projectView{}, err
	}
	v := projectView{Project: h.tasks.Repo(), Overview: ov, Tasks: tasks, OmittedTasks: omitted, Hint: hint}
	// The checkout's part is left out when git cannot read it: the tasks
	// are what the resource is for.
	if c, err := h.tasks.Checkout(ctx); err == nil {
		v.Head, v.Branch, v.CheckoutChanges = c.Head, c.Branch, c.Changes
	}
	return v, nil
}

// samePath reports whether a and b name the same directory.
func samePath(a, b string) bool {
	if !filepath.IsAbs(a) {
		return false
	}
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	if err1 != nil || err2 != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return ra == rb
}

// maxHistoryLines bounds a log:// resource: the newest lines are kept.
const maxHistoryLines = 2000

// history is log://{logType}/{date}: the log entries of every task on one
// UTC day, oldest first, each line prefixed with its task id.
func (h *handlers) history(ctx context.Context, logType, date string) (string, error) {
	if !validLogType(logType) {
		return "", badVar("unknown log type %q: want one of %s", logType, strings.Join(logTypes, ", "))
	}
	day, err := parseDay(date)
	if err != nil {
		return "", err
	}
	next := day.AddDate(0, 0, 1)
	ts, err := h.tasks.List(ctx)
	if err != nil {
		return "", err
	}
	type entry struct {
		at   time.Time
		line string
	}
	var entries []entry
	for _, t := range ts {
		if t.CreatedAt.After(next) || t.UpdatedAt.Before(day) || !orchestrator.Owns(ctx, t) {
			continue // another client's log is not this client's to read
		}
		evs, err := h.tasks.Logs(ctx, t.ID, 0, 0)
		if err != nil {
			return "", err
		}
		for _, ev := range evs {
			e := ev.Event
			if e.Time.Before(day) || !e.Time.Before(next) || (logType != "all" && e.Kind != logType) {
				continue
			}
			entries = append(entries, entry{e.Time, t.ID + " " + logLine(ev)})
		}
	}
	// Tasks interleave: order their entries by time.
	slices.SortStableFunc(entries, func(a, b entry) int { return a.at.Compare(b.at) })
	var b strings.Builder
	fmt.Fprintf(&b, "# %s log entries of %s (UTC): task seq time entry\n", logType, day.Format(time.DateOnly))
	if n := len(entries); n > maxHistoryLines {
		fmt.Fprintf(&b, "# %d earlier entries omitted\n", n-maxHistoryLines)
		entries = entries[n-maxHistoryLines:]
	}
	for _, e := range entries {
		b.WriteString(e.line)
		b.WriteByte('\n')
	}
	return b.String(), nil
}

// logTypes are the log types of log://{logType}/{date}: all, or one
// event kind.
var logTypes = []string{"all", agent.KindMessage, agent.KindToolCall, agent.KindToolResult,
	agent.KindDenied, agent.KindFileChange, agent.KindUsage, agent.KindError,
	agent.KindCompletion, agent.KindLog, agent.KindStderr}

func validLogType(t string) bool { return slices.Contains(logTypes, t) }

func parseDay(date string) (time.Time, error) {
	if date == "today" {
		now := time.Now().UTC()
		return time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC), nil
	}
	d, err := time.ParseInLocation(time.DateOnly, date, time.UTC)
	if err != nil {
		return time.Time{}, badVar("invalid date %q: want YYYY-MM-DD or today", date)
	}
	return d, nil
}
