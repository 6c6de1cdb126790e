package fleet

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/testkit"
)

// exclusive counts the handlers running one task at once and keeps the
// most it saw.
type exclusive struct{ now, most atomic.Int32 }

func (x *exclusive) enter() {
	n := x.now.Add(1)
	for {
		m := x.most.Load()
		if n <= m || x.most.CompareAndSwap(m, n) {
			return
		}
	}
}

func (x *exclusive) leave() { x.now.Add(-1) }

func TestCancelRunning(t *testing.T) {
	e := newEnv(t)
	started := make(chan struct{}, 1)
	causes := make(chan error, 1)
	f, _ := e.worker("w1", []string{"repo-a"})
	work(t, f, info("w1", []string{"repo-a"}, []string{"codex"}), func(ctx context.Context, c *Claim) error {
		started <- struct{}{}
		<-ctx.Done()
		causes <- context.Cause(ctx)
		return ctx.Err()
	})
	offer(t, e.coord, Offer{Repo: "repo-a", Task: "t1", Run: 1, Agent: "codex"})
	testkit.Receive(t, 30*time.Second, "the run to start", started)
	if err := e.coord.Cancel(testkit.Context(t, 10*time.Second), "repo-a", "t1", 1); err != nil {
		t.Fatal(err)
	}
	if cause := testkit.Receive(t, 30*time.Second, "the handler's context cancelled", causes); !errors.Is(cause, ErrCancelled) {
		t.Fatalf("cause %v, want ErrCancelled", cause)
	}
	e.settled("repo-a", "codex")
}

func TestCancelBeforeClaimDrops(t *testing.T) {
	e := newEnv(t)
	offer(t, e.coord, Offer{Repo: "repo-a", Task: "t1", Run: 1, Agent: "codex"})
	if err := e.coord.Cancel(testkit.Context(t, 10*time.Second), "repo-a", "t1", 1); err != nil {
		t.Fatal(err)
	}
	r := newRecorder()
	f, _ := e.worker("w1", []string{"repo-a"})
	work(t, f, info("w1", []string{"repo-a"}, []string{"codex"}), r.handle)
	e.settled("repo-a", "codex")
	if n := r.count(); n != 0 {
		t.Fatalf("a cancelled offer ran %d times", n)
	}
}

// A worker whose process dies (its connection closes without any
// cleanup) stops renewing; its offer goes to another worker once the
// lease expired, as delivery 2, and the two never run it at once.
func TestKilledWorkerRedelivered(t *testing.T) {
	e := newEnv(t)
	var x exclusive
	first := make(chan *Claim, 1)
	causes := make(chan error, 1)
	f1, nc1 := e.worker("doomed", []string{"repo-a"})
	r1 := work(t, f1, info("doomed", []string{"repo-a"}, []string{"codex"}), func(ctx context.Context, c *Claim) error {
		x.enter()
		defer x.leave()
		first <- c
		<-ctx.Done()
		causes <- context.Cause(ctx)
		return nil
	})
	offer(t, e.coord, Offer{Repo: "repo-a", Task: "t1", Run: 1, Agent: "codex"})
	if c := testkit.Receive(t, 30*time.Second, "the first claim", first); c.Delivery != 1 {
		t.Fatalf("first delivery %d", c.Delivery)
	}
	second := make(chan *Claim, 1)
	f2, _ := e.worker("heir", []string{"repo-a"})
	work(t, f2, info("heir", []string{"repo-a"}, []string{"codex"}), func(ctx context.Context, c *Claim) error {
		x.enter()
		defer x.leave()
		second <- c
		return nil
	})
	nc1.Close() // the process died: no nak, no lease release, no presence removal
	if cause := testkit.Receive(t, 30*time.Second, "the dead worker's handler cancelled", causes); !errors.Is(cause, ErrLeaseLost) && !errors.Is(cause, ErrWorkerStopping) {
		t.Fatalf("cause %v", cause)
	}
	if err := r1.wait(t); err == nil {
		t.Fatal("Work on a closed connection returned nil")
	}
	c := testkit.Receive(t, 60*time.Second, "the redelivery", second)
	if c.Delivery != 2 || c.Task != "t1" {
		t.Fatalf("redelivered %s as delivery %d, want 2", c.Task, c.Delivery)
	}
	e.settled("repo-a", "codex")
	if m := x.most.Load(); m != 1 {
		t.Fatalf("%d handlers ran the task at once", m)
	}
}

// A worker that stops (its Work's context ends) cancels its handlers and
// gives their offers back at once.
func TestStoppedWorkerGivesBack(t *testing.T) {
	e := newEnv(t)
	first := make(chan struct{}, 1)
	causes := make(chan error, 1)
	f1, _ := e.worker("leaving", []string{"repo-a"})
	r1 := work(t, f1, info("leaving", []string{"repo-a"}, []string{"codex"}), func(ctx context.Context, c *Claim) error {
		first <- struct{}{}
		<-ctx.Done()
		causes <- context.Cause(ctx)
		return nil
	})
	offer(t, e.coord, Offer{Repo: "repo-a", Task: "t1", Run: 1, Agent: "codex"})
	testkit.Receive(t, 30*time.Second, "the first claim", first)
	r1.stop()
	if cause := testkit.Receive(t, 30*time.Second, "the handler cancelled", causes); !errors.Is(cause, ErrWorkerStopping) {
		t.Fatalf("cause %v", cause)
	}
	if err := r1.wait(t); err != nil {
		t.Fatalf("Work after its context ended: %v", err)
	}
	r := newRecorder()
	f2, _ := e.worker("staying", []string{"repo-a"})
	work(t, f2, info("staying", []string{"repo-a"}, []string{"codex"}), r.handle)
	if c := testkit.Receive(t, 30*time.Second, "the offer given back", r.runs); c.Delivery != 2 {
		t.Fatalf("delivery %d, want 2", c.Delivery)
	}
}

// A duplicate delivery of an offer whose lease is held is not run.
func TestHeldLeaseNotRun(t *testing.T) {
	e := newEnv(t)
	ctx := testkit.Context(t, 30*time.Second)
	key := runKey("repo-a", "t1", 1)
	if _, err := e.coord.leases.Create(ctx, key, []byte(`{"Worker":"someone"}`)); err != nil {
		t.Fatal(err)
	}
	offer(t, e.coord, Offer{Repo: "repo-a", Task: "t1", Run: 1, Agent: "codex"})
	r := newRecorder()
	f, _ := e.worker("w1", []string{"repo-a"})
	work(t, f, info("w1", []string{"repo-a"}, []string{"codex"}), r.handle)
	testkit.WaitFor(t, 30*time.Second, "the worker to leave the held offer", func() bool {
		c, err := e.coord.js.Consumer(ctx, offerStream("repo-a"), "codex")
		if err != nil {
			return false
		}
		ci, err := c.Info(ctx)
		return err == nil && ci.NumRedelivered+ci.NumAckPending > 0
	})
	if n := r.count(); n != 0 {
		t.Fatalf("ran %d times under another's lease", n)
	}
	// The holder's lease expires (it stopped renewing): now it runs.
	c := testkit.Receive(t, 60*time.Second, "the run after the lease expired", r.runs)
	if c.Delivery != 1 {
		t.Fatalf("delivery %d, want 1: nobody started it before", c.Delivery)
	}
}
