package dashboard_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/dashboard"
	"github.com/sudocode/sudocode/internal/fleet"
	"github.com/sudocode/sudocode/internal/fleetrun/fleettest"
	"github.com/sudocode/sudocode/internal/orchestrator"
	"github.com/sudocode/sudocode/internal/serve"
	"github.com/sudocode/sudocode/internal/testkit"
)

// holdScript prints started, then waits for a file named release in its
// worktree before it ends.
const holdScript = `echo started; while [ ! -f release ]; do sleep 0.05; done; echo finished`

// startHeld starts a task whose agent waits for releaseRun.
func startHeld(t *testing.T, o *orchestrator.Orchestrator, description string) orchestrator.Task {
	t.Helper()
	cfg, _ := json.Marshal(map[string]any{"command": []string{"sh", "-c", holdScript}})
	task, err := o.Create(context.Background(), orchestrator.CreateInput{Agent: "COMMAND", Description: description, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	return task
}

// releaseRun lets holdScript of task id go on in its worktree under the
// directory dir of the worker running it, once the worker has made it.
func releaseRun(t *testing.T, dir, id string) {
	t.Helper()
	var wt string
	testkit.WaitFor(t, time.Minute, "the worktree of task "+id+" under "+dir, func() bool {
		if paths, _ := filepath.Glob(filepath.Join(dir, "worktrees", "*", id)); len(paths) == 1 {
			wt = paths[0]
		}
		return wt != ""
	})
	if err := os.WriteFile(filepath.Join(wt, "release"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
}

// /api/workers lists the fleet's workers connected now, each with the
// runs it is running and their tasks; without a fleet it says there is
// none.
func TestAPIWorkers(t *testing.T) {
	f := newFixture(t)
	fl := fleettest.Start(t, f.dir, "box-1")
	base, srv := startServeWith(t, f, serve.Options{Token: browserToken, Fleet: fl.Setup})
	if srv.Tasks == nil {
		t.Fatalf("tasks unavailable: %s", srv.TasksUnavailable)
	}
	client := &http.Client{Transport: bearer{browserToken}}
	read := func() dashboard.WorkerList {
		t.Helper()
		var l dashboard.WorkerList
		if status := getJSON(t, client, base+"/api/workers", &l); status != http.StatusOK {
			t.Fatalf("GET /api/workers: %d", status)
		}
		return l
	}
	if l := read(); !l.Fleet || l.Workers == nil || len(l.Workers) != 0 || l.Now.IsZero() {
		t.Fatalf("before any worker joined: %+v", l)
	}

	_, dir := fl.Worker(t, "box-1", fleet.WorkerInfo{Host: "build-host", CLIs: []string{"command"}, Labels: []string{"linux"}, Slots: 2})
	var l dashboard.WorkerList
	testkit.WaitFor(t, 30*time.Second, "the worker in /api/workers", func() bool { l = read(); return len(l.Workers) == 1 })
	w := l.Workers[0]
	if w.ID != "box-1" || w.Host != "build-host" || len(w.Agents) != 1 || w.Agents[0] != "command" || len(w.Labels) != 1 || w.Labels[0] != "linux" ||
		w.Slots != 2 || w.Running != 0 || w.Runs == nil || len(w.Runs) != 0 || w.Heartbeat.IsZero() {
		t.Errorf("the worker: %+v", w)
	}

	task := startHeld(t, srv.Tasks, "Hold on the worker")
	testkit.WaitFor(t, time.Minute, "the worker's run in /api/workers", func() bool {
		l = read()
		return len(l.Workers) == 1 && len(l.Workers[0].Runs) == 1
	})
	want := dashboard.WorkerRun{Task: task.ID, Run: 1, Known: true, Description: "Hold on the worker"}
	if w := l.Workers[0]; w.Running != 1 || w.Runs[0] != want {
		t.Errorf("the worker running the task: %+v, want its run %+v", w, want)
	}
	releaseRun(t, dir, task.ID)
	if err := srv.Tasks.Wait(testkit.Context(t, time.Minute), task.ID); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, 30*time.Second, "the worker idle again", func() bool {
		l = read()
		return len(l.Workers) == 1 && l.Workers[0].Running == 0 && len(l.Workers[0].Runs) == 0
	})

	// Without a fleet: no workers, and no error.
	base2, _ := startServe(t, newFixture(t))
	var none dashboard.WorkerList
	if status := getJSON(t, client, base2+"/api/workers", &none); status != http.StatusOK || none.Fleet || none.Workers == nil || len(none.Workers) != 0 {
		t.Errorf("without a fleet: %d %+v", status, none)
	}
}
