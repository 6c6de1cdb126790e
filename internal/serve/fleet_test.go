package serve_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/fleet"
	"github.com/sudocode/sudocode/internal/fleetrun/fleettest"
	"github.com/sudocode/sudocode/internal/mcpx"
	"github.com/sudocode/sudocode/internal/mcpx/metricstest"
	"github.com/sudocode/sudocode/internal/orchestrator"
	"github.com/sudocode/sudocode/internal/serve"
	"github.com/sudocode/sudocode/internal/testkit"
)

// holdScript prints started, then waits for a file named release in its
// worktree before it ends.
const holdScript = `echo started; while [ ! -f release ]; do sleep 0.05; done; echo finished`

// /metrics shows the fleet's workers as they are at each scrape: how many
// are connected, and each one's slots, runs in progress and heartbeat.
func TestServeMetricsShowTheFleetsWorkers(t *testing.T) {
	dir := project(t)
	f := fleettest.Start(t, dir, "gpu-box")
	ts, srv := start(t, dir, serve.Options{Calls: &mcpx.Calls{Metrics: mcpx.NewMetrics()}, Fleet: f.Setup})
	if srv.Tasks == nil {
		t.Fatalf("no orchestrator: %s", srv.TasksUnavailable)
	}
	url := ts.URL + mcpx.MetricsPath
	if fams, _ := metricstest.Scrape(t, url, testToken); metricstest.Sample(fams, "sudocode_fleet_workers", nil) != 0 {
		t.Fatalf("sudocode_fleet_workers before any worker joined: %v", fams["sudocode_fleet_workers"])
	}

	_, wdir := f.Worker(t, "gpu-box", fleet.WorkerInfo{Host: "box-1", CLIs: []string{"command"}, Labels: []string{"gpu"}, Slots: 3})
	gpu := map[string]string{"worker": "gpu-box", "host": "box-1"}
	scrapeUntil := func(what string, ok func(fams map[string]float64) bool) {
		t.Helper()
		var last map[string]float64
		testkit.WaitFor(t, 30*time.Second, what, func() bool {
			fams, _ := metricstest.Scrape(t, url, testToken)
			last = map[string]float64{}
			for _, name := range []string{"sudocode_fleet_workers", "sudocode_fleet_worker_slots", "sudocode_fleet_worker_running", "sudocode_fleet_worker_heartbeat_timestamp_seconds"} {
				labels := gpu
				if name == "sudocode_fleet_workers" {
					labels = nil
				}
				last[name] = metricstest.Sample(fams, name, labels)
			}
			return ok(last)
		})
		t.Logf("%s: %v", what, last)
	}
	scrapeUntil("the worker in the metrics", func(m map[string]float64) bool { return m["sudocode_fleet_workers"] == 1 })
	fams, _ := metricstest.Scrape(t, url, testToken)
	if got := metricstest.Sample(fams, "sudocode_fleet_worker_slots", gpu); got != 3 {
		t.Errorf("sudocode_fleet_worker_slots%v = %v, want 3", gpu, got)
	}
	if got := metricstest.Sample(fams, "sudocode_fleet_worker_running", gpu); got != 0 {
		t.Errorf("sudocode_fleet_worker_running%v = %v, want 0", gpu, got)
	}
	// The heartbeat is the worker's own clock's reading: only its being
	// set is checked, not its distance to this one's.
	if got := metricstest.Sample(fams, "sudocode_fleet_worker_heartbeat_timestamp_seconds", gpu); got <= 0 {
		t.Errorf("sudocode_fleet_worker_heartbeat_timestamp_seconds%v = %v", gpu, got)
	}
	for _, name := range []string{"sudocode_fleet_workers", "sudocode_fleet_worker_slots", "sudocode_fleet_worker_running"} {
		if fams[name].GetHelp() == "" || fams[name].GetType().String() != "GAUGE" {
			t.Errorf("%s: help %q, type %v", name, fams[name].GetHelp(), fams[name].GetType())
		}
	}

	// A run on the worker counts until it ends.
	cfg, _ := json.Marshal(map[string]any{"command": []string{"sh", "-c", holdScript}})
	task, err := srv.Tasks.Create(context.Background(), orchestrator.CreateInput{Agent: "COMMAND", Description: "Hold", Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	scrapeUntil("the worker's run in the metrics", func(m map[string]float64) bool { return m["sudocode_fleet_worker_running"] == 1 })
	release(t, wdir, task.ID)
	if err := srv.Tasks.Wait(testkit.Context(t, time.Minute), task.ID); err != nil {
		t.Fatal(err)
	}
	scrapeUntil("the worker idle again", func(m map[string]float64) bool { return m["sudocode_fleet_worker_running"] == 0 })
}

// Without a fleet, /metrics has no fleet series at all.
func TestServeMetricsWithoutAFleet(t *testing.T) {
	ts, _ := start(t, project(t), serve.Options{Calls: &mcpx.Calls{Metrics: mcpx.NewMetrics()}})
	fams, _ := metricstest.Scrape(t, ts.URL+mcpx.MetricsPath, testToken)
	if fams["sudocode_tasks"] == nil {
		t.Fatal("no sudocode_tasks: not the server's metrics?")
	}
	for name := range fams {
		if strings.HasPrefix(name, "sudocode_fleet_") {
			t.Errorf("%s without a fleet", name)
		}
	}
}

// release lets holdScript of task id go on in its worktree under a
// worker's directory dir, once the worker has made it.
func release(t *testing.T, dir, id string) {
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
