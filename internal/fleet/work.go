package fleet

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
)

// WorkerInfo describes a worker: what it may run and how many at once.
type WorkerInfo struct {
	ID, Host            string
	Repos, CLIs, Labels []string
	Slots               int // how many handlers may run at once (at least 1)
	Version             string
}

func (w WorkerInfo) check() error {
	if err := checkWorkerID(w.ID); err != nil {
		return err
	}
	if len(w.Repos) == 0 || len(w.CLIs) == 0 {
		return fmt.Errorf("fleet: worker %s: no repos or no CLIs: it could run nothing", w.ID)
	}
	for _, r := range w.Repos {
		if err := checkRepo(r); err != nil {
			return err
		}
	}
	for _, a := range w.CLIs {
		if err := checkAgent(a); err != nil {
			return err
		}
	}
	if w.Slots < 1 {
		return fmt.Errorf("fleet: worker %s: %d slots: want at least 1", w.ID, w.Slots)
	}
	return nil
}

// Handler runs one claimed run. Its context ends when the run is
// cancelled (cause ErrCancelled), the lease is lost (ErrLeaseLost) or the
// worker stops (ErrWorkerStopping); it must return soon after.
type Handler func(ctx context.Context, c *Claim) error

// The causes of a handler's cancelled context (context.Cause).
var (
	ErrCancelled      = errors.New("fleet: run cancelled")
	ErrLeaseLost      = errors.New("fleet: lease lost: another worker may run it now")
	ErrWorkerStopping = errors.New("fleet: worker stopping")
)

// Timings of the worker's loops that are not options.
const (
	// fetchWait is one pull request's life. A pull holds a slot while it
	// waits, so with fewer slots than repository/agent pairs an offer may
	// wait this long for its pair's turn; ctx cancels the wait at once.
	fetchWait     = 2 * time.Second
	retryWait     = 500 * time.Millisecond // after an error, or while a repository has no queue yet
	cleanupWait   = 5 * time.Second        // for the acks and deletes after a handler or Work ended
	preferBounces = 250 * time.Millisecond // how often an offer for a preferred worker comes back
)

// worker is one Work call's state.
type worker struct {
	f       *Fleet
	w       WorkerInfo
	h       Handler
	started time.Time
	slots   chan struct{} // a token per running (or fetching) slot
	kick    chan struct{} // presence changed: refresh now
	fatal   chan error    // the connection closed: Work ends

	mu       sync.Mutex
	stopping bool
	running  map[string]*Claim // by run key
	// considering are the offers fetched and being claimed; handlers, the
	// claims' handlers.
	considering, handlers sync.WaitGroup
}

// Work runs h for the offers w may take until ctx ends: it advertises w's
// presence, claims offers of w.Repos for w.CLIs whose labels w has, at
// most w.Slots at once, and runs each under a lease (see the package
// doc). When ctx ends it cancels the running handlers (cause
// ErrWorkerStopping), waits for them, puts their offers back for another
// worker, removes its presence and returns nil. It returns an error when
// the connection closes under it.
func (f *Fleet) Work(ctx context.Context, w WorkerInfo, h Handler) error {
	if err := w.check(); err != nil {
		return err
	}
	wk := &worker{
		f: f, w: w, h: h, started: time.Now(),
		slots:   make(chan struct{}, w.Slots),
		kick:    make(chan struct{}, 1),
		fatal:   make(chan error, 1),
		running: map[string]*Claim{},
	}
	if err := wk.putPresence(ctx); err != nil {
		return err
	}
	var subs []*nats.Subscription
	defer func() {
		for _, s := range subs {
			s.Unsubscribe()
		}
	}()
	for _, repo := range w.Repos {
		// A cancellation is a put in the cancels bucket; its subject
		// reaches plain subscribers as well as the stream, at once.
		s, err := f.nc.Subscribe("$KV."+cancelsBucket+"."+repo+".>", wk.onCancel)
		if err != nil {
			return fmt.Errorf("fleet: worker %s: watch cancellations of %s: %w", w.ID, repo, err)
		}
		subs = append(subs, s)
	}
	loopCtx, stopLoops := context.WithCancel(ctx)
	var loops sync.WaitGroup
	loops.Go(func() { wk.presenceLoop(loopCtx) })
	for _, repo := range w.Repos {
		for _, agent := range w.CLIs {
			loops.Go(func() { wk.fetchLoop(loopCtx, repo, agent) })
		}
	}
	var err error
	select {
	case <-ctx.Done():
	case err = <-wk.fatal:
	}
	stopLoops()
	wk.stop()
	loops.Wait()
	wk.considering.Wait() // a claim made meanwhile sees stopping and gives its offer back
	wk.handlers.Wait()
	if err == nil && !f.nc.IsClosed() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupWait)
		defer cancel()
		if derr := f.workers.Delete(cctx, w.ID); derr != nil {
			slog.Warn("fleet: remove presence", "worker", w.ID, "err", derr)
		}
	}
	return err
}

// stop cancels every running handler and keeps new claims from starting.
func (wk *worker) stop() {
	wk.mu.Lock()
	defer wk.mu.Unlock()
	wk.stopping = true
	for _, c := range wk.running {
		c.cancel(ErrWorkerStopping)
	}
}

// onCancel cancels the running claim a cancellation names, if any.
func (wk *worker) onCancel(m *nats.Msg) {
	if op := m.Header.Get("KV-Operation"); op != "" {
		return // a delete or purge of the record, not a cancellation
	}
	key := m.Subject[len("$KV."+cancelsBucket+"."):]
	wk.mu.Lock()
	c := wk.running[key]
	wk.mu.Unlock()
	if c != nil {
		c.cancel(ErrCancelled)
	}
}

// failed tells whether err means the connection is gone for good, and
// then ends Work.
func (wk *worker) failed() bool {
	if !wk.f.nc.IsClosed() {
		return false
	}
	select {
	case wk.fatal <- fmt.Errorf("fleet: worker %s: %w", wk.w.ID, nats.ErrConnectionClosed):
	default:
	}
	return true
}

// poke asks the presence loop to publish now.
func (wk *worker) poke() {
	select {
	case wk.kick <- struct{}{}:
	default:
	}
}

// tasks is the runs running now, for presence.
func (wk *worker) tasks() []string {
	wk.mu.Lock()
	defer wk.mu.Unlock()
	var out []string
	for _, c := range wk.running {
		out = append(out, c.Repo+"/"+c.Task+"/"+strconv.Itoa(c.Run))
	}
	return out
}
