package mcpx

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// FleetWorker is a connected worker of the fleet as the metrics show it.
type FleetWorker struct {
	ID, Host  string
	Slots     int // runs it takes at once
	Running   int // runs in progress
	Heartbeat time.Time
}

// WatchFleet reports the fleet's workers, as workers returns them at each
// scrape (the orchestrator's, when its tasks run through a fleet):
//
//	sudocode_fleet_workers                                           workers connected now
//	sudocode_fleet_worker_slots{worker,host}                         runs a worker takes at once
//	sudocode_fleet_worker_running{worker,host}                       runs a worker has in progress
//	sudocode_fleet_worker_heartbeat_timestamp_seconds{worker,host}   its last heartbeat, Unix time
//
// A worker that left has no series: a gone worker's series end with it.
// Call it only for a fleet: without one there is no series at all, not a
// zero that reads like a fleet without workers.
func (m *Metrics) WatchFleet(workers func(context.Context) ([]FleetWorker, error)) {
	if m == nil {
		return
	}
	labels := []string{"worker", "host"}
	_ = m.reg.Register(&fleetCollector{
		workers: workers,
		count:   prometheus.NewDesc("sudocode_fleet_workers", "Workers of the fleet connected now that may run the project's tasks.", nil, nil),
		slots:   prometheus.NewDesc("sudocode_fleet_worker_slots", "Runs a connected worker of the fleet takes at once, by worker and host.", labels, nil),
		running: prometheus.NewDesc("sudocode_fleet_worker_running", "Runs a connected worker of the fleet has in progress, by worker and host.", labels, nil),
		beat: prometheus.NewDesc("sudocode_fleet_worker_heartbeat_timestamp_seconds",
			"When a connected worker of the fleet last reported itself (its heartbeat, by its clock), in seconds since the Unix epoch, by worker and host.", labels, nil),
	})
}

type fleetCollector struct {
	workers                     func(context.Context) ([]FleetWorker, error)
	count, slots, running, beat *prometheus.Desc
}

func (c *fleetCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.count
	ch <- c.slots
	ch <- c.running
	ch <- c.beat
}

func (c *fleetCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ws, err := c.workers(ctx)
	if err != nil {
		// The workers are unknown, not gone: no series but the error.
		ch <- prometheus.NewInvalidMetric(c.count, err)
		return
	}
	ch <- prometheus.MustNewConstMetric(c.count, prometheus.GaugeValue, float64(len(ws)))
	for _, w := range ws {
		ch <- prometheus.MustNewConstMetric(c.slots, prometheus.GaugeValue, float64(w.Slots), w.ID, w.Host)
		ch <- prometheus.MustNewConstMetric(c.running, prometheus.GaugeValue, float64(w.Running), w.ID, w.Host)
		ch <- prometheus.MustNewConstMetric(c.beat, prometheus.GaugeValue, float64(w.Heartbeat.UnixMilli())/1e3, w.ID, w.Host)
	}
}
