package mcpx

import (
	"context"
	"net/http"
	"sort"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// MetricsPath is where an HTTP server answers Prometheus scrapes.
const MetricsPath = "/metrics"

// maxToolLabels caps the tool label values of one server: a tool name
// comes from the client, and only the names of real tools should become
// series.
const maxToolLabels = 256

// Metrics are the Prometheus metrics of the servers of one process:
//
//	sudocode_mcp_tool_calls_total{server,tool,outcome}   tool calls by outcome (ok, error, protocol-error, rate-limited)
//	sudocode_mcp_tool_errors_total{server,tool}          the calls whose outcome is not ok
//	sudocode_mcp_tool_call_duration_seconds{server,tool} latency histogram
//	sudocode_mcp_sessions{server}                        live MCP sessions
//	sudocode_tasks{status}                               the orchestrator's tasks by status
//	sudocode_fleet_*                                     the fleet's workers, with a fleet (WatchFleet)
//
// plus the Go runtime's and the process's own (go_*, process_*).
type Metrics struct {
	reg     *prometheus.Registry
	calls   *prometheus.CounterVec
	errors  *prometheus.CounterVec
	latency *prometheus.HistogramVec

	mu    sync.Mutex
	tools map[string]map[string]bool // per server, the tool label values in use
}

// NewMetrics returns the metrics on a registry of their own.
func NewMetrics() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "sudocode_mcp_tool_calls_total",
			Help: "MCP tool calls, by server, tool and outcome (ok, error, protocol-error, rate-limited).",
		}, []string{"server", "tool", "outcome"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "sudocode_mcp_tool_errors_total",
			Help: "MCP tool calls that did not succeed (a tool error, a protocol error or a rate limit), by server and tool.",
		}, []string{"server", "tool"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "sudocode_mcp_tool_call_duration_seconds",
			Help:    "Time to answer an MCP tool call, by server and tool.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300},
		}, []string{"server", "tool"}),
		tools: map[string]map[string]bool{},
	}
	m.reg.MustRegister(m.calls, m.errors, m.latency,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Handler answers scrapes in the Prometheus text format (or OpenMetrics
// when asked).
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError, EnableOpenMetrics: true})
}

// observe counts one tool call. known is false when the call did not show
// that the tool exists (an unknown tool, or a call refused before it ran).
func (m *Metrics) observe(server, tool string, known bool, outcome Outcome, took time.Duration) {
	if m == nil {
		return
	}
	tool = m.toolLabel(server, tool, known)
	m.calls.WithLabelValues(server, tool, string(outcome)).Inc()
	if outcome != OutcomeOK {
		m.errors.WithLabelValues(server, tool).Inc()
	}
	m.latency.WithLabelValues(server, tool).Observe(took.Seconds())
}

// toolLabel is the tool label of a call: its name once a call has shown
// that the tool exists (known), else "unknown".
func (m *Metrics) toolLabel(server, tool string, known bool) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	set := m.tools[server]
	if set == nil {
		set = map[string]bool{}
		m.tools[server] = set
	}
	if set[tool] {
		return tool
	}
	if !known {
		return "unknown"
	}
	if len(set) >= maxToolLabels {
		return "other"
	}
	set[tool] = true
	return tool
}

// WatchSessions reports count() as the live sessions of server at each
// scrape. A second call for the same server is ignored.
func (m *Metrics) WatchSessions(server string, count func() int) {
	if m == nil {
		return
	}
	_ = m.reg.Register(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name:        "sudocode_mcp_sessions",
		Help:        "Live MCP sessions, by server.",
		ConstLabels: prometheus.Labels{"server": server},
	}, func() float64 { return float64(count()) }))
}

// WatchTasks reports the tasks by status, as status returns them at each
// scrape (the orchestrator's Status).
func (m *Metrics) WatchTasks(status func(context.Context) (map[string]int, error)) {
	if m == nil {
		return
	}
	_ = m.reg.Register(&taskCollector{
		desc:   prometheus.NewDesc("sudocode_tasks", "Agent orchestrator tasks, by status.", []string{"status"}, nil),
		status: status,
	})
}

type taskCollector struct {
	desc   *prometheus.Desc
	status func(context.Context) (map[string]int, error)
}

func (c *taskCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c *taskCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	counts, err := c.status(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(c.desc, err)
		return
	}
	statuses := make([]string, 0, len(counts))
	for s := range counts {
		statuses = append(statuses, s)
	}
	sort.Strings(statuses)
	for _, s := range statuses {
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, float64(counts[s]), s)
	}
}
