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

// fetchOne waits for one offer, holding a slot, and considers it in the
// background, which then owns the slot (freed unless a handler takes it
// over); it reports whether an offer came. The loop meanwhile fetches the
// next: a claim is several round trips to the server, and sixteen offers
// claimed one after the other waited for each other's, seconds on a busy
// machine.
func (wk *worker) fetchOne(ctx context.Context, cons jetstream.Consumer) bool {
	fctx, cancel := context.WithTimeout(ctx, fetchWait)
	defer cancel()
	batch, err := cons.Fetch(1, jetstream.FetchContext(fctx))
	if err != nil {
		wait(ctx, retryWait)
		return false
	}
	got := false
	for m := range batch.Messages() {
		got = true
		wk.considering.Go(func() {
			if !wk.consider(ctx, m) {
				<-wk.slots
			}
		})
	}
	if err := batch.Error(); err != nil && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) && !errors.Is(err, nats.ErrTimeout) {
		if !got {
			wait(ctx, retryWait)
		}
	}
	return got
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
