package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Presence is what a live worker advertises, refreshed every heartbeat.
type Presence struct {
	ID        string    `json:"id"`
	Host      string    `json:"host"`
	Repos     []string  `json:"repos"`
	CLIs      []string  `json:"agents"`
	Labels    []string  `json:"labels"`
	Slots     int       `json:"slots"`
	Running   int       `json:"running"`
	Tasks     []string  `json:"tasks"` // "repo/task/run" of the runs it is running
	Started   time.Time `json:"started"`
	Heartbeat time.Time `json:"heartbeat"`
	Version   string    `json:"version,omitempty"`
}

// MarshalJSON writes empty lists as [], not null.
func (p Presence) MarshalJSON() ([]byte, error) {
	type plain Presence
	q := plain(p)
	for _, l := range []*[]string{&q.Repos, &q.CLIs, &q.Labels, &q.Tasks} {
		if *l == nil {
			*l = []string{}
		}
	}
	return json.Marshal(q)
}

// Workers lists the live workers (whose presence has not expired),
// sorted by ID.
func (f *Fleet) Workers(ctx context.Context) ([]Presence, error) {
	// A watcher of every key sends the current values, then nil: one
	// round trip instead of a get per worker.
	w, err := f.workers.WatchAll(ctx, jetstream.IgnoreDeletes())
	if err != nil {
		return nil, fmt.Errorf("fleet: list workers: %w", err)
	}
	defer w.Stop()
	var out []Presence
	for {
		var e jetstream.KeyValueEntry
		select {
		case e = <-w.Updates():
		case <-ctx.Done():
			return nil, fmt.Errorf("fleet: list workers: %w", ctx.Err())
		}
		if e == nil {
			break
		}
		var p Presence
		if err := json.Unmarshal(e.Value(), &p); err != nil {
			continue // not ours to read: a worker of another version
		}
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// Capable reports whether a live worker of repo has agent and all labels,
// so a coordinator can tell a run that waits for nobody from one that
// waits its turn.
func (f *Fleet) Capable(ctx context.Context, repo, agent string, labels []string) (bool, error) {
	ws, err := f.Workers(ctx)
	if err != nil {
		return false, err
	}
	for _, w := range ws {
		if slices.Contains(w.Repos, repo) && slices.Contains(w.CLIs, agent) && hasAll(w.Labels, labels) {
			return true, nil
		}
	}
	return false, nil
}

// alive reports whether worker id's presence is current.
func (f *Fleet) alive(ctx context.Context, id string) (bool, error) {
	_, err := f.workers.Get(ctx, id)
	if errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrKeyDeleted) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("fleet: worker %s: %w", id, err)
	}
	return true, nil
}

// hasAll reports whether have includes every one of want.
func hasAll(have, want []string) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}
