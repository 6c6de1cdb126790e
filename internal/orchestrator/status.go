package orchestrator

import (
	"context"

	"github.com/sudocode/sudocode/internal/orchestrator/agent"
)

// Overview is agent://status: the tasks by status and the tool kinds.
type Overview struct {
	Repo     string         `json:"repo"`
	Total    int            `json:"total"`
	ByStatus map[Status]int `json:"by_status"` // every status, zeros included
	Active   int            `json:"active"`    // agents running in this server, or followed on the fleet's workers
	Kinds    []KindInfo     `json:"kinds"`
	// Workers are the fleet's workers connected now, with Options.Fleet
	// (absent without it; [] when none is); WorkersProblem says why they
	// could not be read.
	Workers        []Worker `json:"workers,omitempty"`
	WorkersProblem string   `json:"workers_problem,omitempty"`
}

// KindInfo says whether a create_task tool kind can run here.
type KindInfo struct {
	Kind      string `json:"kind"`
	Available bool   `json:"available"`
	Problem   string `json:"problem,omitempty"` // why not, e.g. what to install
}

// Status returns the overview of the tasks and tool kinds.
func (o *Orchestrator) Status(ctx context.Context) (Overview, error) {
	by, total, err := o.countByStatus(ctx)
	if err != nil {
		return Overview{}, err
	}
	ov := Overview{Repo: o.opts.Repo, Total: total, ByStatus: by, Kinds: []KindInfo{}}
	o.mu.Lock()
	ov.Active = len(o.running)
	o.mu.Unlock()
	for _, k := range agent.Kinds() {
		ki := KindInfo{Kind: k, Available: true}
		ad, ok := o.lookup(k)
		switch {
		case !ok:
			ki.Available, ki.Problem = false, "not enabled on this server"
		case o.opts.Fleet != nil:
			// The fleet's workers run the agents: a kind is available when
			// a worker connected now has its CLI, whatever this machine has.
			capable, err := o.opts.Fleet.Capable(ctx, k, nil)
			switch {
			case err != nil:
				ki.Available, ki.Problem = false, "the fleet cannot be read: "+err.Error()
			case !capable:
				ki.Available, ki.Problem = false, "no worker of the fleet connected now has it (see sudocode workers); a task of it waits for one"
			}
		case k == agent.ToolCommand: // any command given in config: nothing to check ahead
		default:
			if err := ad.Check(agent.RunSpec{Path: o.opts.Env.Getenv("PATH")}); err != nil {
				ki.Available, ki.Problem = false, err.Error()
			}
		}
		ov.Kinds = append(ov.Kinds, ki)
	}
	if o.HasFleet() {
		ws, err := o.Workers(ctx)
		if err != nil {
			ov.WorkersProblem = err.Error()
		}
		ov.Workers = append([]Worker{}, ws...)
	}
	return ov, nil
}

// ByStatus counts the tasks by status, every status included: what
// /metrics scrapes, without Status's checks of the tool kinds and the
// fleet's workers.
func (o *Orchestrator) ByStatus(ctx context.Context) (map[Status]int, error) {
	by, _, err := o.countByStatus(ctx)
	return by, err
}

func (o *Orchestrator) countByStatus(ctx context.Context) (map[Status]int, int, error) {
	tasks, err := o.store.List(ctx)
	if err != nil {
		return nil, 0, err
	}
	by := map[Status]int{}
	for _, s := range []Status{StatusPending, StatusInProgress, StatusWaiting, StatusCompleted, StatusFailed, StatusCancelled} {
		by[s] = 0
	}
	for _, t := range tasks {
		by[t.Status]++
	}
	return by, len(tasks), nil
}
