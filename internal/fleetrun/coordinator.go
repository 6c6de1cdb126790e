package fleetrun

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/sudocode/sudocode/internal/fleet"
	"github.com/sudocode/sudocode/internal/orchestrator"
)

// Coordinator is the orchestrator's Fleet for one repository over the
// fleet: runs are offered under the repository's key, for the agent's
// kind in lower case.
type Coordinator struct {
	f    *fleet.Fleet
	repo string
}

// NewCoordinator returns the Fleet of repository repo (a RepoKey).
func NewCoordinator(f *fleet.Fleet, repo string) *Coordinator { return &Coordinator{f: f, repo: repo} }

// AgentToken is an agent kind as the fleet routes it ("CLAUDECODE" →
// "claudecode").
func AgentToken(kind string) string { return strings.ToLower(kind) }

// Offer implements orchestrator.Fleet.
func (c *Coordinator) Offer(ctx context.Context, a orchestrator.Assignment) error {
	body, err := json.Marshal(a)
	if err != nil {
		return err
	}
	return c.f.Offer(ctx, fleet.Offer{Repo: c.repo, Task: a.Task, Run: a.Run, Agent: AgentToken(a.Agent),
		Labels: a.Labels, Prefer: a.Prefer, Body: body})
}

// Cancel implements orchestrator.Fleet.
func (c *Coordinator) Cancel(ctx context.Context, task string, run int) error {
	return c.f.Cancel(ctx, c.repo, task, run)
}

// Watch implements orchestrator.Fleet.
func (c *Coordinator) Watch(ctx context.Context, task string, run int, after uint64) (<-chan orchestrator.RunMessage, error) {
	in, err := c.f.Watch(ctx, c.repo, task, run, after)
	if err != nil {
		return nil, err
	}
	out := make(chan orchestrator.RunMessage)
	go func() {
		defer close(out)
		for m := range in {
			select {
			case out <- orchestrator.RunMessage{Seq: m.Seq, Kind: m.Kind, Worker: m.Worker, Body: m.Body}:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out, nil
}

// Capable implements orchestrator.Fleet.
func (c *Coordinator) Capable(ctx context.Context, agent string, labels []string) (bool, error) {
	return c.f.Capable(ctx, c.repo, AgentToken(agent), labels)
}

// Workers implements orchestrator.Fleet: the live workers granted the
// repository.
func (c *Coordinator) Workers(ctx context.Context) ([]orchestrator.Worker, error) {
	ps, err := c.f.Workers(ctx)
	if err != nil {
		return nil, err
	}
	out := []orchestrator.Worker{}
	for _, p := range ps {
		if !slices.Contains(p.Repos, c.repo) {
			continue
		}
		out = append(out, orchestrator.Worker{ID: p.ID, Host: p.Host, Agents: nonNil(p.CLIs), Labels: nonNil(p.Labels),
			Slots: p.Slots, Running: p.Running, Tasks: nonNil(p.Tasks), Heartbeat: p.Heartbeat})
	}
	return out, nil
}

func nonNil(l []string) []string {
	if l == nil {
		return []string{}
	}
	return l
}
