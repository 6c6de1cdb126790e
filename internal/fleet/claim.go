package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Claim is an offer a worker holds the lease of.
type Claim struct {
	Offer
	Delivery int // 1 first; >1 when started again after a lost lease or a stopped worker

	wk       *worker
	key      string
	msg      jetstream.Msg
	ctx      context.Context
	cancelFn context.CancelCauseFunc

	mu  sync.Mutex
	rev uint64 // the lease's revision, advanced by each renewal
}

// Send sends a message about the run, stamped with the worker's id and
// the delivery; Watch sees it.
func (c *Claim) Send(ctx context.Context, kind string, body []byte) error {
	return c.wk.f.send(ctx, c.Offer, c.wk.w.ID, c.Delivery, kind, body)
}

func (c *Claim) cancel(cause error) { c.cancelFn(cause) }

// doneWait bounds how long a worker tries to record a run done: through
// a cluster's failover (a node lost, its streams electing new leaders,
// seconds on busy machines), not for ever.
const doneWait = 2 * time.Minute

// markDone records c's run done, trying again while the server does not
// answer (up to doneWait): a run whose record is lost would be run again
// when its offer came back unacknowledged.
func (f *Fleet) markDone(c *Claim, worker string) {
	data, _ := json.Marshal(claimRecord{Delivery: c.Delivery, Done: true, Worker: worker})
	deadline := time.Now().Add(doneWait)
	for wait := 100 * time.Millisecond; ; wait = min(2*wait, 2*time.Second) {
		ctx, cancel := context.WithTimeout(context.Background(), cleanupWait)
		_, err := f.claims.Put(ctx, c.key, data)
		cancel()
		if err == nil {
			return
		}
		if time.Now().After(deadline) || f.nc.IsClosed() {
			slog.Warn("fleet: mark run done", "run", c.key, "err", err)
			return
		}
		time.Sleep(wait)
	}
}

// run runs the handler while renewing the lease, then settles the offer.
func (wk *worker) run(c *Claim) {
	f := wk.f
	done := make(chan struct{})
	var renewing sync.WaitGroup
	renewing.Go(func() { c.renew(done) })
	err := wk.h(c.ctx, c)
	// The run's slot is free now; its bookkeeping below may wait out a
	// cluster's failover, and must not keep the next run from starting.
	<-wk.slots
	cause := context.Cause(c.ctx)
	if cause == nil {
		// Finished: recorded done while the lease is still held and
		// renewed, so that no other worker takes the offer meanwhile.
		f.markDone(c, wk.w.ID)
	}
	close(done)
	renewing.Wait()
	c.cancel(nil) // release the context's resources; keeps an earlier cause
	if err != nil {
		slog.Warn("fleet: handler failed", "worker", wk.w.ID, "run", c.key, "delivery", c.Delivery, "err", err)
	}
	cctx, cancel := context.WithTimeout(context.Background(), cleanupWait)
	defer cancel()
	switch {
	case errors.Is(cause, ErrLeaseLost):
		// Not ours any more: the offer comes back after its ack wait,
		// to whoever takes the lease next.
	case errors.Is(cause, ErrWorkerStopping):
		// Unfinished: back on the queue at once, lease freed for the
		// next worker.
		c.msg.Nak()
		c.releaseLease(cctx)
	default:
		// Finished, well or not, or cancelled: the outcome is the
		// orchestrator's business. Done first (above, or now for a run
		// cancelled), so a lost ack cannot start it again.
		if cause != nil {
			f.markDone(c, wk.w.ID)
		}
		if err := c.msg.DoubleAck(cctx); err != nil {
			slog.Warn("fleet: ack offer", "run", c.key, "err", err)
		}
		c.releaseLease(cctx)
	}
	wk.mu.Lock()
	delete(wk.running, c.key)
	wk.mu.Unlock()
	wk.poke()
}
