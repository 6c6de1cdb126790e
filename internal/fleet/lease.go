package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

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

func (c *Claim) releaseLease(ctx context.Context) {
	c.mu.Lock()
	rev := c.rev
	c.mu.Unlock()
	if err := c.wk.f.leases.Delete(ctx, c.key, jetstream.LastRevision(rev)); err != nil {
		slog.Warn("fleet: release lease", "run", c.key, "err", err)
	}
}

// renew keeps the lease and the offer's ack wait alive every LeaseTTL/3
// until done. A lease that is gone or taken, or that could not be renewed
// for half its life, cancels the handler: past its expiry another worker
// may take the run. It also looks up the cancellation record, for a
// cancellation sent while the connection was down.
func (c *Claim) renew(done <-chan struct{}) {
	f := c.wk.f
	every := f.o.LeaseTTL / 3
	t := time.NewTicker(every)
	defer t.Stop()
	last := time.Now()
	val, _ := json.Marshal(leaseValue{Worker: c.wk.w.ID, Delivery: c.Delivery})
	for {
		select {
		case <-done:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), every)
		c.mu.Lock()
		rev := c.rev
		c.mu.Unlock()
		nrev, err := f.leases.Update(ctx, c.key, val, rev)
		switch {
		case err == nil:
			c.mu.Lock()
			c.rev = nrev
			c.mu.Unlock()
			last = time.Now()
			c.msg.InProgress()
		case errors.Is(err, jetstream.ErrKeyRevisionMismatch), errors.Is(err, nats.ErrConnectionClosed), time.Since(last) > f.o.LeaseTTL/2:
			slog.Warn("fleet: lease lost", "worker", c.wk.w.ID, "run", c.key, "err", err)
			c.cancel(ErrLeaseLost)
			cancel()
			return
		}
		if yes, _ := f.cancelled(ctx, c.key); yes {
			c.cancel(ErrCancelled)
		}
		cancel()
	}
}
