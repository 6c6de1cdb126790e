package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/spf13/cobra"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/fleet"
	"github.com/sudocode/sudocode/internal/fleetrun"
	"github.com/sudocode/sudocode/internal/natsbus"
)

// workerOptions are the flags of "sudocode worker".
type workerOptions struct {
	connect, creds, dir string
	labels, agents      []string
	slots               int
	g                   *globalOptions
	stdio               IO
}

func newWorkerCmd(g *globalOptions, stdio IO) *cobra.Command {
	o := &workerOptions{g: g, stdio: stdio}
	cmd := &cobra.Command{
		Use:   "worker",
		Short: "Run agents for a coordinator's fleet from this machine",
		Long: `Join the fleet of a coordinator ("sudocode serve" on another machine, or
this one) and run the task runs it offers.

The worker connects to the coordinator's NATS server with the credentials the
coordinator issued ("sudocode workers add NAME" there), over TLS that trusts
only the authority they pin (the coordinator's own), advertises this machine's
agent CLIs (those on PATH with a login; --agents to choose), its labels and
its free slots, and takes the runs it can do: for each, it fetches the commit
the run starts from out of the repository the coordinator names into a clone of
its own, runs the agent in a worktree in the sealed box (as the coordinator
would), streams the log back, and pushes the work to the coordinator's
repository; the coordinator reviews and merges it.

A worker that stops (SIGINT, SIGTERM) stops its agents and gives their runs
back with their work so far (a last checkpoint, which the next worker goes on
from); one that is killed loses them when its lease runs out, and they are
offered again, going on from the last checkpoint it saved (every few seconds).`,
		Example: `  sudocode worker --connect nats://coordinator.lan:4222 --creds ~/gpu-box.creds --label gpu --slots 4`,
		Args:    exactArgs(0),
		RunE:    func(cmd *cobra.Command, _ []string) error { return runWorker(cmd.Context(), o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.connect, "connect", "", "the coordinator's NATS `URL` (nats://HOST:PORT; several separated by commas)")
	f.StringVar(&o.creds, "creds", "", "the credentials `FILE` the coordinator issued (sudocode workers add)")
	f.StringSliceVar(&o.labels, "label", nil, "a `LABEL` tasks can ask for (e.g. gpu, os=linux); repeatable")
	f.StringSliceVar(&o.agents, "agents", nil, "the agent CLIs to offer (claudecode, codex, gemini, opencode, command); default those on PATH with a login (an API key in the environment, or the CLI's own login file)")
	f.IntVar(&o.slots, "slots", 2, "how many runs at once")
	f.StringVar(&o.dir, "dir", "", "where the clones and worktrees go (default $XDG_STATE_HOME/sudocode/worker/NAME)")
	return cmd
}

func runWorker(ctx context.Context, o *workerOptions) error {
	stdio := o.stdio
	if o.connect == "" || o.creds == "" {
		return usageError{fmt.Errorf("--connect and --creds are required: the coordinator's NATS URL and the credentials it issued (sudocode workers add NAME, run there)")}
	}
	if o.slots < 1 {
		return usageError{fmt.Errorf("--slots %d: at least 1", o.slots)}
	}
	c, err := natsbus.ReadCreds(stdio.path(o.creds))
	if err != nil {
		return err
	}
	nc, repos, err := joinFleet(ctx, stdio, o.connect, c)
	if err != nil {
		if ctx.Err() != nil {
			return nil // stopped by a signal while waiting
		}
		return err
	}
	defer nc.Close()
	f, err := fleet.OpenWorker(ctx, nc, fleet.Options{})
	if err != nil {
		return err
	}
	dir := stdio.path(o.dir)
	if dir == "" {
		if dir, err = fleetrun.WorkerDir(stdio.Env, c.Name); err != nil {
			return err
		}
	}
	agents := o.agents
	if len(agents) == 0 {
		var left []string
		agents, left = fleetrun.DetectCLIs(stdio.Env, true)
		for _, l := range left {
			fmt.Fprintf(stdio.Err, "sudocode worker: not offering %s; --agents offers it anyway\n", l)
		}
	}
	host, _ := os.Hostname()
	w := &fleetrun.Worker{Fleet: f, Env: stdio.Env, Dir: dir, Tracker: stdio.trackerCommand(), Info: fleet.WorkerInfo{
		ID: c.Name, Host: host, Repos: repos, CLIs: agents, Labels: o.labels, Slots: o.slots, Version: Version,
	}}
	fmt.Fprintf(stdio.Out, "sudocode worker %s: connected to %s; repositories %s; agents %s; %d slots\n",
		c.Name, o.connect, strings.Join(repos, ", "), strings.Join(agents, ", "), o.slots)
	err = w.Run(ctx)
	if ctx.Err() != nil {
		return nil // stopped by a signal: the runs were given back
	}
	return err
}

// joinFleet connects to the coordinator's NATS and reads the worker's
// grant, trying again (every few seconds, saying so once) while the
// coordinator is not up or has not admitted the worker yet: a worker may
// start first, or right after "workers add", which serve applies within
// seconds. It returns once joined, when ctx ends, or at once when the
// server is not the fleet the credentials are for (natsbus.ErrNotTheFleet):
// trying again would not change that.
func joinFleet(ctx context.Context, stdio IO, url string, c natsbus.Creds) (*nats.Conn, []string, error) {
	said := false
	for wait := time.Duration(0); ; wait = min(2*wait+250*time.Millisecond, 5*time.Second) {
		select {
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		case <-time.After(wait):
		}
		nc, err := natsbus.Connect(ctx, url, c)
		if err == nil {
			var repos []string
			if repos, err = fleetrun.ReadGrant(ctx, nc, c.Name); err == nil {
				return nc, repos, nil
			}
			nc.Close()
		}
		if errors.Is(err, natsbus.ErrNotTheFleet) {
			return nil, nil, fault.Wrap(fault.Invalid, err, "sudocode worker "+c.Name+" cannot join the fleet at "+url).
				WithHint("issue the credentials again on the coordinator the worker should join (sudocode workers add NAME --out FILE, once its serve has started) and pass that file with --creds")
		}
		if !said {
			why := err.Error()
			if errors.Is(err, nats.ErrAuthorization) {
				// Most often the coordinator has yet to read its registry
				// (every 2 s), or its serve is not running.
				why = "not admitted yet (serve admits the workers that `sudocode workers add` issued within seconds; one removed since is never admitted)"
			}
			fmt.Fprintf(stdio.Err, "sudocode worker %s: waiting for the coordinator at %s: %s\n", c.Name, url, why)
			said = true
		}
	}
}
