package orchestrator

import "context"

// HasFleet reports whether the tasks' agents run on a fleet's workers
// (Options.Fleet), whose workers Workers then lists.
func (o *Orchestrator) HasFleet() bool { return o.opts.Fleet != nil }

// Workers are the fleet's workers connected now that may run the
// repository's tasks, [] when none is; nil without a fleet. It reads the
// fleet alone (not the tasks, as Status does), for callers that ask
// often: the metrics at each scrape, the dashboard while it shows them.
func (o *Orchestrator) Workers(ctx context.Context) ([]Worker, error) {
	if o.opts.Fleet == nil {
		return nil, nil
	}
	ws, err := o.opts.Fleet.Workers(ctx)
	if err != nil {
		return nil, err
	}
	return append([]Worker{}, ws...), nil
}
