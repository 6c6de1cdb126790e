package cli

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/pflag"

	"github.com/sudocode/sudocode/internal/fleet"
	"github.com/sudocode/sudocode/internal/fleetrun"
	"github.com/sudocode/sudocode/internal/orchestrator"
)

// EnvFleetLease is how long a worker's lease of a run lasts without
// renewal (a Go duration): a killed worker's runs are offered again after
// it. For serve's embedded fleet; workers read it from the fleet.
const EnvFleetLease = "SUDOCODE_FLEET_LEASE"

// fleetFlags are serve's flags of the fleet.
type fleetFlags struct {
	on                  bool
	nats, creds, listen string
	remote              string // --fleet-remote
	mirror              string // the workers' repository, as this process reaches it
	localSlots          int
	flags               *pflag.FlagSet
	host                *fleetrun.Host
	stopWorker          func()
}

func (f *fleetFlags) register(fs *pflag.FlagSet) {
	fs.BoolVar(&f.on, "fleet", true, "run the tasks' agents through the fleet: an embedded NATS JetStream (under the state directory, loopback, credentials made here) with a worker in this process, which workers of other machines can join (sudocode workers add); --fleet=false runs them in this process alone")
	fs.StringVar(&f.nats, "nats", "", "use the NATS (JetStream) server or cluster at `URL` for the fleet instead of the embedded one (implies --fleet; needs --nats-creds)")
	fs.StringVar(&f.creds, "nats-creds", "", "the coordinator's credentials `FILE` for --nats")
	fs.StringVar(&f.listen, "nats-listen", "", "the embedded NATS server's `ADDR` (default 127.0.0.1 and a free port; 0.0.0.0:4222 admits workers of other machines, with their credentials)")
	fs.StringVar(&f.remote, "fleet-remote", "", "the workers' repository as workers of other machines reach it (e.g. ssh://HOST/PATH, with the PATH serve prints); default its path here")
	fs.IntVar(&f.localSlots, "local-slots", DefaultLocalSlots, "how many runs the worker in this process takes at once (0: none; only other workers run agents)")
	f.flags = fs
}

// DefaultLocalSlots is how many runs serve's own worker takes at once
// unless told: as many as run_ready's largest --parallel here, so that
// the fleet on one machine runs what serve without it ran.
const DefaultLocalSlots = 16

func (f *fleetFlags) enabled() bool { return f.on || f.nats != "" }

// unreachable reports whether workers of other machines may join (the
// embedded server listens beyond loopback, or the fleet is an external
// cluster) while the workers' repository is named by its path here
// (no --fleet-remote), which they cannot fetch from.
func (f *fleetFlags) unreachable() bool {
	if f.remote != "" {
		return false
	}
	if f.nats != "" {
		return true
	}
	host, _, err := net.SplitHostPort(f.listen)
	if err != nil {
		return false // the default: loopback
	}
	ip := net.ParseIP(host)
	return host != "localhost" && (ip == nil || !ip.IsLoopback())
}

// asked reports whether the fleet was asked for on the command line
// (--fleet or --nats) rather than on by default: then a fleet that cannot
// start is an error, where the default falls back to running the tasks
// in this process.
func (f *fleetFlags) asked() bool { return f.flags.Changed("fleet") || f.nats != "" }

// start starts the project's fleet, and the worker of this process, and
// returns how the tasks go to it.
func (f *fleetFlags) start(ctx context.Context, stdio IO, dir string, logger *slog.Logger) (*orchestrator.FleetSetup, error) {
	if f.nats != "" && f.creds == "" {
		return nil, usageError{fmt.Errorf("--nats needs --nats-creds: the coordinator's credentials for that server")}
	}
	if f.localSlots < 0 {
		return nil, usageError{fmt.Errorf("--local-slots %d: 0 or more", f.localSlots)}
	}
	key, fdir, err := fleetrun.Locate(ctx, stdio.Env, dir)
	if err != nil {
		return nil, err
	}
	opts := fleet.Options{}
	if v := stdio.Getenv(EnvFleetLease); v != "" {
		if opts.LeaseTTL, err = time.ParseDuration(v); err != nil || opts.LeaseTTL < time.Second {
			return nil, usageError{fmt.Errorf("%s=%s: want a duration of at least 1s (e.g. 30s)", EnvFleetLease, v)}
		}
		opts.Heartbeat = max(opts.LeaseTTL/6, 200*time.Millisecond)
	}
	if f.mirror, err = fleetrun.Mirror(ctx, dir, fdir); err != nil {
		return nil, err
	}
	f.host, err = fleetrun.StartHost(ctx, fleetrun.HostOptions{Dir: fdir, URL: f.nats, Creds: stdio.path(f.creds),
		Listen: f.listen, Fleet: opts, Log: logger})
	if err != nil {
		return nil, err
	}
	if f.localSlots > 0 {
		wdir, err := fleetrun.WorkerDir(stdio.Env, "local-"+filepath.Base(fdir))
		if err != nil {
			f.host.Close()
			return nil, err
		}
		host, _ := os.Hostname()
		// It offers every CLI installed here, logged in or not: on the
		// coordinator's machine a task fails with the CLI's own word, as
		// it does without the fleet, rather than wait for a worker.
		clis, _ := fleetrun.DetectCLIs(stdio.Env, false)
		// It runs the agents in the tasks' worktrees, over this checkout.
		w := &fleetrun.Worker{Fleet: f.host.Fleet, Env: stdio.Env, Dir: wdir, Checkouts: map[string]string{key: dir}, Tracker: stdio.trackerCommand(), Info: fleet.WorkerInfo{
			ID: fleetrun.LocalWorker, Host: host, Repos: []string{key}, CLIs: clis, Slots: f.localSlots, Version: Version}}
		wctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		done := make(chan struct{})
		go func() {
			defer close(done)
			if err := w.Run(wctx); err != nil && wctx.Err() == nil {
				logger.Error("the fleet's worker in this process stopped", "err", err)
			}
		}()
		f.stopWorker = func() { cancel(); <-done }
	}
	setup := &orchestrator.FleetSetup{Fleet: fleetrun.NewCoordinator(f.host.Fleet, key), Remote: f.mirror, WorkerRemote: f.remote}
	if f.localSlots > 0 {
		setup.PreferWorker = fleetrun.LocalWorker
	}
	return setup, nil
}

// stop stops the worker of this process (its runs go back to the fleet)
// and the fleet.
func (f *fleetFlags) stop() {
	if f.stopWorker != nil {
		f.stopWorker()
	}
	if f.host != nil {
		f.host.Close()
	}
}
