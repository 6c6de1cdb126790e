package mcpx

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/sudocode/sudocode/internal/mcpx/metricstest"
)

var (
	scrape = metricstest.Scrape
	sample = metricstest.Sample
)

// /metrics answers behind the same token as /mcp, and counts the calls of
// real clients by tool and outcome, their latency, and the live sessions.
func TestMetricsScrapedAndParsed(t *testing.T) {
	a, err := NewAuth("", writeTokenFile(t, "", "alice "+aliceToken+"\nbob "+bobToken+"\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	oneAtATime, _ := ParseRate("1/m")
	base := startTeam(t, Transport{Name: "team", Auth: a, Calls: &Calls{
		Metrics: NewMetrics(), Limits: NewLimiter(Rate{}, map[string]Rate{"fail": oneAtATime}),
	}})
	if _, status := scrape(t, base+MetricsPath, ""); status != http.StatusUnauthorized {
		t.Errorf("/metrics without a token: %d, want 401", status)
	}
	alice := mustConnectAs(t, base+Path, aliceToken)
	bob := mustConnectAs(t, base+Path, bobToken)
	for range 3 {
		callText(t, alice, "whoami", nil)
	}
	callText(t, bob, "record", map[string]any{"x": 1})
	callText(t, bob, "fail", nil)
	callText(t, bob, "fail", nil) // rate limited
	callText(t, bob, "no_such_tool", nil)

	fams, status := scrape(t, base+MetricsPath, bobToken)
	if status != http.StatusOK {
		t.Fatalf("/metrics with a token: %d", status)
	}
	for _, c := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"sudocode_mcp_tool_calls_total", map[string]string{"server": "team", "tool": "whoami", "outcome": "ok"}, 3},
		{"sudocode_mcp_tool_calls_total", map[string]string{"server": "team", "tool": "record", "outcome": "ok"}, 1},
		{"sudocode_mcp_tool_calls_total", map[string]string{"server": "team", "tool": "fail", "outcome": "error"}, 1},
		{"sudocode_mcp_tool_calls_total", map[string]string{"server": "team", "tool": "fail", "outcome": "rate-limited"}, 1},
		{"sudocode_mcp_tool_calls_total", map[string]string{"server": "team", "tool": "unknown", "outcome": "protocol-error"}, 1},
		{"sudocode_mcp_tool_errors_total", map[string]string{"server": "team", "tool": "fail"}, 2},
		{"sudocode_mcp_tool_errors_total", map[string]string{"server": "team", "tool": "whoami"}, -1},
		{"sudocode_mcp_tool_call_duration_seconds", map[string]string{"server": "team", "tool": "whoami"}, 3},
		{"sudocode_mcp_tool_call_duration_seconds", map[string]string{"server": "team", "tool": "fail"}, 2},
		{"sudocode_mcp_sessions", map[string]string{"server": "team"}, 2},
	} {
		if got := sample(fams, c.name, c.labels); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
	if fams["sudocode_mcp_tool_calls_total"].GetMetric() == nil || sample(fams, "sudocode_mcp_tool_calls_total", map[string]string{"tool": "no_such_tool"}) != -1 {
		t.Error("an unknown tool's name became a label")
	}
	if fams["go_goroutines"] == nil || fams["process_cpu_seconds_total"] == nil {
		t.Error("no Go runtime or process metrics")
	}

	alice.Close()
	fams, _ = scrape(t, base+MetricsPath, aliceToken)
	if got := sample(fams, "sudocode_mcp_sessions", map[string]string{"server": "team"}); got != 1 {
		t.Errorf("sessions after alice left = %v, want 1", got)
	}
}

func TestMetricsTasksCollector(t *testing.T) {
	m := NewMetrics()
	m.WatchTasks(func(context.Context) (map[string]int, error) {
		return map[string]int{"pending": 1, "completed": 4}, nil
	})
	fams, err := m.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*dto.MetricFamily{}
	for _, f := range fams {
		byName[f.GetName()] = f
	}
	if got := sample(byName, "sudocode_tasks", map[string]string{"status": "completed"}); got != 4 {
		t.Errorf("sudocode_tasks{status=completed} = %v, want 4", got)
	}
}

// The fleet's workers are read at each scrape: one series per worker
// connected then, none for one that left, and the reading's error as the
// scrape's when the fleet cannot be read.
func TestMetricsFleetCollector(t *testing.T) {
	m := NewMetrics()
	beat := time.Date(2026, 1, 2, 3, 4, 5, 500_000_000, time.UTC)
	workers := []FleetWorker{{ID: "gpu-box", Host: "gpu.example", Slots: 4, Running: 1, Heartbeat: beat}, {ID: "local", Host: "laptop", Slots: 2}}
	var readErr error
	m.WatchFleet(func(context.Context) ([]FleetWorker, error) { return workers, readErr })
	gather := func() (map[string]*dto.MetricFamily, error) {
		fams, err := m.reg.Gather()
		byName := map[string]*dto.MetricFamily{}
		for _, f := range fams {
			byName[f.GetName()] = f
		}
		return byName, err
	}
	fams, err := gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"sudocode_fleet_workers", nil, 2},
		{"sudocode_fleet_worker_slots", map[string]string{"worker": "gpu-box", "host": "gpu.example"}, 4},
		{"sudocode_fleet_worker_running", map[string]string{"worker": "gpu-box", "host": "gpu.example"}, 1},
		{"sudocode_fleet_worker_running", map[string]string{"worker": "local", "host": "laptop"}, 0},
		{"sudocode_fleet_worker_heartbeat_timestamp_seconds", map[string]string{"worker": "gpu-box"}, float64(beat.Unix()) + 0.5},
	} {
		if got := sample(fams, c.name, c.labels); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}

	workers = workers[1:]
	if fams, _ = gather(); sample(fams, "sudocode_fleet_worker_slots", map[string]string{"worker": "gpu-box"}) != -1 || sample(fams, "sudocode_fleet_workers", nil) != 1 {
		t.Errorf("after gpu-box left: %v", fams["sudocode_fleet_worker_slots"])
	}

	readErr = errors.New("no answer from the fleet")
	if _, err := gather(); err == nil || !strings.Contains(err.Error(), "no answer from the fleet") {
		t.Errorf("a fleet that cannot be read: %v", err)
	}
}
