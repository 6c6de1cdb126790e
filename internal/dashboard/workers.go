package dashboard

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/orchestrator"
)

// WorkerList is /api/workers: the fleet's workers connected now, as
// `sudocode workers` lists them, for the tasks page.
type WorkerList struct {
	// Fleet is false when serve runs the agents as its own processes (no
	// --fleet): there are no workers, and the page shows none.
	Fleet   bool         `json:"fleet"`
	Workers []WorkerView `json:"workers"`
	// Now is the server's clock when the list was read: the page measures
	// how long ago each heartbeat was against it, not against the
	// browser's clock, which may be another machine's.
	Now time.Time `json:"now"`
}

// WorkerView is a worker and the runs it is running, each with its task
// where the task is this project's.
type WorkerView struct {
	orchestrator.Worker
	Runs []WorkerRun `json:"runs"`
}

// WorkerRun is a run a worker is running (one of Worker.Tasks).
type WorkerRun struct {
	Task string `json:"task"`
	Run  int    `json:"run"`
	// Known is whether the task is one of this project's tasks, which the
	// page links to; Description is then its description.
	Known       bool   `json:"known"`
	Description string `json:"description,omitempty"`
}

func (d *Dashboard) workers(w http.ResponseWriter, r *http.Request) {
	o := d.projectTasks(w)
	if o == nil {
		return
	}
	out := WorkerList{Fleet: o.HasFleet(), Workers: []WorkerView{}, Now: time.Now().UTC()}
	ws, err := o.Workers(r.Context())
	if err != nil {
		fail(w, fault.Wrap(fault.Unavailable, err, "the fleet's workers cannot be read"))
		return
	}
	for _, wk := range ws {
		v := WorkerView{Worker: wk, Runs: make([]WorkerRun, 0, len(wk.Tasks))}
		for _, ref := range wk.Tasks {
			v.Runs = append(v.Runs, runOf(r.Context(), o, ref))
		}
		out.Workers = append(out.Workers, v)
	}
	writeJSON(w, http.StatusOK, out)
}

// runOf reads a worker's run "repo/task/run" (fleet.Presence.Tasks): a
// worker may serve other repositories too, so a task id that is not one
// of this project's is shown as it is, without a link.
func runOf(ctx context.Context, o *orchestrator.Orchestrator, ref string) WorkerRun {
	rest, num, _ := cutLast(ref)
	_, task, ok := cutLast(rest)
	n, err := strconv.Atoi(num)
	if !ok || err != nil || task == "" {
		return WorkerRun{Task: ref}
	}
	run := WorkerRun{Task: task, Run: n}
	if t, err := o.Get(ctx, task); err == nil {
		run.Known, run.Description = true, t.Description
	}
	return run
}

// cutLast cuts s around its last slash.
func cutLast(s string) (before, after string, found bool) {
	i := strings.LastIndexByte(s, '/')
	if i < 0 {
		return "", s, false
	}
	return s[:i], s[i+1:], true
}
