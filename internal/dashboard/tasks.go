package dashboard

import (
	"net/http"
	"strconv"
	"time"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/orchestrator"
)

// TaskList is /api/tasks: newest first.
type TaskList struct {
	Tasks []TaskView `json:"tasks"`
}

// projectTasks is the project's tasks, or nil when they are unavailable, which
// it answers w with.
func (d *Dashboard) projectTasks(w http.ResponseWriter) *orchestrator.Orchestrator {
	if d.opts.Tasks == nil {
		reason := d.opts.TasksUnavailable
		if reason == "" {
			reason = "the agent orchestrator is not running"
		}
		fail(w, fault.New(fault.Unavailable, "tasks are unavailable: %s", reason))
	}
	return d.opts.Tasks
}

func (d *Dashboard) tasks(w http.ResponseWriter, r *http.Request) {
	o := d.projectTasks(w)
	if o == nil {
		return
	}
	ts, err := o.List(r.Context())
	if err != nil {
		fail(w, err)
		return
	}
	out := TaskList{Tasks: make([]TaskView, 0, len(ts))}
	for i := len(ts) - 1; i >= 0; i-- {
		out.Tasks = append(out.Tasks, viewOf(listed(r.Context(), ts[i])))
	}
	writeJSON(w, http.StatusOK, out)
}

func (d *Dashboard) task(w http.ResponseWriter, r *http.Request) {
	o := d.projectTasks(w)
	if o == nil {
		return
	}
	t, err := ownedTask(r.Context(), o, r.PathValue("id"))
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, viewOf(t))
}

// TaskLogs is /api/tasks/{id}/logs?since=SEQ&limit=N.
type TaskLogs struct {
	Events  []orchestrator.StoredEvent `json:"events"`
	LastSeq int64                      `json:"last_seq"`
}

// logPage is the most events one logs answer or one stream write carries.
const logPage = 500

func (d *Dashboard) taskLogs(w http.ResponseWriter, r *http.Request) {
	o := d.projectTasks(w)
	if o == nil {
		return
	}
	since, err := seqParam(r.URL.Query().Get("since"))
	if err != nil {
		fail(w, err)
		return
	}
	if _, err := ownedTask(r.Context(), o, r.PathValue("id")); err != nil {
		fail(w, err)
		return
	}
	limit := logPage
	if s := r.URL.Query().Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > logPage {
			fail(w, fault.New(fault.Invalid, "limit must be between 1 and %d", logPage))
			return
		}
		limit = n
	}
	evs, err := o.Logs(r.Context(), r.PathValue("id"), since, limit)
	if err != nil {
		fail(w, err)
		return
	}
	out := TaskLogs{Events: evs, LastSeq: since}
	if out.Events == nil {
		out.Events = []orchestrator.StoredEvent{}
	}
	if n := len(evs); n > 0 {
		out.LastSeq = evs[n-1].Seq
	}
	writeJSON(w, http.StatusOK, out)
}

func seqParam(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, fault.New(fault.Invalid, "since must be a log sequence number (0 or more), not %q", s)
	}
	return n, nil
}

// taskStream is /api/tasks/{id}/stream: the task ("task" events, on every
// change of its state) and its log from ?since= (or the Last-Event-ID a
// reconnecting EventSource sends) on, one "log" event per entry with the
// entry's sequence number as the event id, as the agent works.
func (d *Dashboard) taskStream(w http.ResponseWriter, r *http.Request) {
	o := d.projectTasks(w)
	if o == nil {
		return
	}
	ctx := r.Context()
	id := r.PathValue("id")
	q := r.URL.Query().Get("since")
	if last := r.Header.Get("Last-Event-ID"); last != "" {
		q = last
	}
	since, err := seqParam(q)
	if err != nil {
		fail(w, err)
		return
	}
	// Subscribe before the first read, so that no change falls between.
	wake := make(chan struct{}, 1)
	unsub := o.Subscribe(func(c orchestrator.Change) {
		if c.Task.ID == id {
			select {
			case wake <- struct{}{}:
			default:
			}
		}
	})
	defer unsub()
	t, err := ownedTask(ctx, o, id)
	if err != nil {
		fail(w, err)
		return
	}
	s := sse(w)
	if s == nil {
		return
	}
	if s.send("", "task", viewOf(t)) != nil {
		return
	}
	lastState := t.UpdatedAt
	lastStatus := t.Status
	tick := time.NewTicker(keepAlive)
	defer tick.Stop()
	for {
		for {
			evs, err := o.Logs(ctx, id, since, logPage)
			if err != nil {
				return
			}
			for _, e := range evs {
				if s.send(strconv.FormatInt(e.Seq, 10), "log", e) != nil {
					return
				}
				since = e.Seq
			}
			if len(evs) < logPage {
				break
			}
		}
		if t, err := o.Get(ctx, id); err == nil && (!t.UpdatedAt.Equal(lastState) || t.Status != lastStatus) {
			lastState, lastStatus = t.UpdatedAt, t.Status
			if s.send("", "task", viewOf(t)) != nil {
				return
			}
		}
		select {
		case <-wake:
		case <-tick.C:
			if s.comment("ping") != nil {
				return
			}
		case <-d.hub.done:
			return
		case <-ctx.Done():
			return
		}
	}
}

// TaskDiff is /api/tasks/{id}/diff: everything merging the task would
// take, file by file (orchestrator.Diff): its branch's commits and its
// worktree's uncommitted and untracked files, which are listed apart.
type TaskDiff struct {
	orchestrator.Diff
}

func (d *Dashboard) taskDiff(w http.ResponseWriter, r *http.Request) {
	o := d.projectTasks(w)
	if o == nil {
		return
	}
	diff, err := o.Diff(r.Context(), r.PathValue("id"))
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, TaskDiff{diff})
}
