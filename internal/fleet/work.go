package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
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
	handlers sync.WaitGroup
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

// wait waits d or until ctx ends, reporting whether ctx is still live.
func wait(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// fetchLoop pulls offers of repo for agent, one per free slot, from the
// consumer the coordinator created; until it exists (no offer was made
// yet), it looks again every retryWait.
func (wk *worker) fetchLoop(ctx context.Context, repo, agent string) {
	var cons jetstream.Consumer
	warned := false
	for ctx.Err() == nil {
		if cons == nil {
			c, err := wk.f.js.Consumer(ctx, offerStream(repo), agent)
			if err != nil {
				// Not found is the normal wait for a first offer; anything
				// else (a refused request times out) is worth one line.
				if !warned && ctx.Err() == nil && !errors.Is(err, jetstream.ErrStreamNotFound) && !errors.Is(err, jetstream.ErrConsumerNotFound) {
					slog.Warn("fleet: cannot read the offers (do the worker's permissions name this repository?)", "worker", wk.w.ID, "repo", repo, "agent", agent, "err", err)
					warned = true
				}
				if wk.failed() || !wait(ctx, retryWait) {
					return
				}
				continue
			}
			cons = c
		}
		select {
		case wk.slots <- struct{}{}:
		case <-ctx.Done():
			return
		}
		if !wk.fetchOne(ctx, cons) {
			<-wk.slots
		}
		if wk.failed() {
			return
		}
	}
}

// fetchOne waits for one offer and considers it, holding a slot; it
// reports whether a handler took the slot over.
func (wk *worker) fetchOne(ctx context.Context, cons jetstream.Consumer) bool {
	fctx, cancel := context.WithTimeout(ctx, fetchWait)
	defer cancel()
	batch, err := cons.Fetch(1, jetstream.FetchContext(fctx))
	if err != nil {
		wait(ctx, retryWait)
		return false
	}
	started := false
	for m := range batch.Messages() {
		started = wk.consider(ctx, m)
	}
	if err := batch.Error(); err != nil && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) && !errors.Is(err, nats.ErrTimeout) {
		if !started {
			wait(ctx, retryWait)
		}
	}
	return started
}

// consider decides what to do with one delivered offer: leave it for
// another worker, drop it, or claim it and start its handler (then it
// returns true and the handler owns the slot).
func (wk *worker) consider(ctx context.Context, m jetstream.Msg) bool {
	f := wk.f
	var o Offer
	if err := json.Unmarshal(m.Data(), &o); err != nil || o.check() != nil {
		slog.Error("fleet: dropping an offer that is not one", "subject", m.Subject(), "err", err)
		m.Term()
		return false
	}
	meta, err := m.Metadata()
	if err != nil {
		m.Nak()
		return false
	}
	if !hasAll(wk.w.Labels, o.Labels) {
		m.NakWithDelay(max(f.o.Heartbeat/5, 100*time.Millisecond))
		return false
	}
	if o.Prefer != "" && o.Prefer != wk.w.ID {
		// The offer's age is by the server's clock against ours: a skew
		// only lengthens or shortens the head start.
		if left := f.o.PreferFor - time.Since(meta.Timestamp); left > 0 {
			m.NakWithDelay(min(left, preferBounces))
			return false
		}
	}
	key := runKey(o.Repo, o.Task, o.Run)
	if c, err := f.cancelled(ctx, key); err != nil || c {
		if c {
			m.Ack() // cancelled before anyone ran it: dropped
		} else {
			m.Nak()
		}
		return false
	}
	c, err := wk.claim(ctx, o, key, m)
	if err != nil {
		if !errors.Is(err, errHeld) {
			slog.Warn("fleet: claim", "worker", wk.w.ID, "run", key, "err", err)
		}
		return false
	}
	if c == nil {
		return false
	}
	wk.handlers.Go(func() { wk.run(c) })
	return true
}

// leaseValue is what a lease holds: who holds it, under which delivery.
type leaseValue struct {
	Worker   string
	Delivery int
}

// claimRecord counts the starts of a run and marks it done, so that a
// run that finished is not started again when its ack was lost, and so
// that Delivery counts real starts, not skips.
type claimRecord struct {
	Delivery int
	Done     bool
	Worker   string
}

var errHeld = errors.New("fleet: the run's lease is held")

// claim takes key's lease and counts a start of the run; nil, nil when
// the run is done already (its offer is acked).
func (wk *worker) claim(ctx context.Context, o Offer, key string, m jetstream.Msg) (*Claim, error) {
	f := wk.f
	val, _ := json.Marshal(leaseValue{Worker: wk.w.ID})
	rev, err := f.leases.Create(ctx, key, val)
	if errors.Is(err, jetstream.ErrKeyExists) {
		// Another worker runs it (a duplicate delivery) or died and its
		// lease has yet to expire: look again in a while.
		m.NakWithDelay(f.o.LeaseTTL / 3)
		return nil, errHeld
	}
	if err != nil {
		m.Nak()
		return nil, err
	}
	release := func() {
		cctx, cancel := context.WithTimeout(context.Background(), cleanupWait)
		defer cancel()
		f.leases.Delete(cctx, key, jetstream.LastRevision(rev))
	}
	var rec claimRecord
	if e, err := f.claims.Get(ctx, key); err == nil {
		json.Unmarshal(e.Value(), &rec)
	} else if !errors.Is(err, jetstream.ErrKeyNotFound) && !errors.Is(err, jetstream.ErrKeyDeleted) {
		m.Nak()
		release()
		return nil, err
	}
	if rec.Done {
		m.Ack()
		release()
		return nil, nil
	}
	rec.Delivery++
	rec.Worker = wk.w.ID
	data, _ := json.Marshal(rec)
	if _, err := f.claims.Put(ctx, key, data); err != nil {
		m.Nak()
		release()
		return nil, err
	}
	hctx, cancel := context.WithCancelCause(context.Background())
	c := &Claim{Offer: o, Delivery: rec.Delivery, wk: wk, key: key, msg: m, rev: rev, ctx: hctx, cancelFn: cancel}
	wk.mu.Lock()
	stopping := wk.stopping
	if !stopping {
		wk.running[key] = c
	}
	wk.mu.Unlock()
	if stopping {
		m.Nak()
		release()
		return nil, nil
	}
	wk.poke()
	// A cancellation that came between the check and the registration
	// reached no running claim: look once more now that one would.
	if cancelled, _ := f.cancelled(ctx, key); cancelled {
		c.cancel(ErrCancelled)
	}
	return c, nil
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
