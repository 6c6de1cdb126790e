// Package fleettest starts a project's fleet for the tests of the layers
// above it (serve, the dashboard): the embedded NATS JetStream that
// `sudocode serve --fleet` starts, in a temporary directory, and workers
// that join it as another machine's do, each over a connection of its own
// with the credentials `sudocode workers add` issues.
package fleettest

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/fleet"
	"github.com/sudocode/sudocode/internal/fleetrun"
	"github.com/sudocode/sudocode/internal/natsbus"
	"github.com/sudocode/sudocode/internal/orchestrator"
	"github.com/sudocode/sudocode/internal/testkit"
	"github.com/sudocode/sudocode/internal/userenv"
)

// Fleet is a running fleet of one repository.
type Fleet struct {
	Host *fleetrun.Host
	Key  string // the repository's key (fleetrun.RepoKey)
	// Setup is what serve.Options.Fleet takes: the repository's tasks go
	// to the fleet, and workers fetch from its mirror.
	Setup *orchestrator.FleetSetup

	creds map[string]natsbus.Creds
}

// Start starts the fleet of the repository at repo, with credentials for
// the workers named; it stops when the test ends.
func Start(t testing.TB, repo string, workers ...string) *Fleet {
	t.Helper()
	ctx := testkit.Context(t, time.Minute)
	key, err := fleetrun.RepoKey(ctx, repo)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	f := &Fleet{Key: key, creds: map[string]natsbus.Creds{}}
	// Issued before the host starts, which admits them at once.
	for _, w := range workers {
		if f.creds[w], err = fleetrun.OpenRegistry(dir).Issue(w, []string{key}, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	if f.Host, err = fleetrun.StartHost(ctx, fleetrun.HostOptions{Dir: dir}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Host.Close)
	mirror, err := fleetrun.Mirror(ctx, repo, dir)
	if err != nil {
		t.Fatal(err)
	}
	f.Setup = &orchestrator.FleetSetup{Fleet: fleetrun.NewCoordinator(f.Host.Fleet, key), Remote: mirror}
	return f
}

// Worker runs a worker named in Start, as info describes it (ID and Repos
// are filled in), on a connection of its own, until stop is called or the
// test ends. It works in a clone of its own, under dir.
func (f *Fleet) Worker(t testing.TB, name string, info fleet.WorkerInfo) (stop func(), dir string) {
	t.Helper()
	cr, ok := f.creds[name]
	if !ok {
		t.Fatalf("fleettest: no credentials for worker %s: name it in Start", name)
	}
	cr.CA = f.Host.CA // issued before the host made its authority
	ctx, cancel := context.WithCancel(context.Background())
	connectCtx := testkit.Context(t, time.Minute)
	nc, err := natsbus.Connect(connectCtx, f.Host.URL, cr)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	wf, err := fleet.OpenWorker(connectCtx, nc, fleet.Options{})
	if err != nil {
		cancel()
		nc.Close()
		t.Fatal(err)
	}
	info.ID, info.Repos = name, []string{f.Key}
	dir = t.TempDir()
	w := &fleetrun.Worker{Fleet: wf, Env: userenv.Of(os.Environ()), Dir: dir, Grace: time.Second, Info: info}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := w.Run(ctx); err != nil && ctx.Err() == nil {
			t.Errorf("worker %s: %v", name, err)
		}
	}()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			<-done
			nc.Close()
		})
	}
	t.Cleanup(stop)
	return stop, dir
}
