package fleet

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/testkit"
)

func TestOfferClaimSendWatch(t *testing.T) {
	e := newEnv(t)
	f, _ := e.worker("w1", []string{"repo-a"})
	claims := make(chan *Claim, 1)
	work(t, f, info("w1", []string{"repo-a"}, []string{"codex"}), func(ctx context.Context, c *Claim) error {
		for _, k := range []string{"started", "progress", "finished"} {
			if err := c.Send(ctx, k, []byte(k+" body")); err != nil {
				return err
			}
		}
		claims <- c
		return nil
	})
	offer(t, e.coord, Offer{Repo: "repo-a", Task: "t1", Run: 1, Agent: "codex", Body: []byte("do it")})
	c := testkit.Receive(t, 30*time.Second, "the claim", claims)
	if c.Repo != "repo-a" || c.Task != "t1" || c.Run != 1 || c.Delivery != 1 || string(c.Body) != "do it" {
		t.Fatalf("claim %+v", c)
	}
	e.settled("repo-a", "codex")

	ctx := testkit.Context(t, 30*time.Second)
	ch, err := e.coord.Watch(ctx, "repo-a", "t1", 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	var msgs []RunMsg
	for _, want := range []string{"started", "progress", "finished"} {
		m := testkit.Receive(t, 30*time.Second, "run message "+want, ch)
		if m.Kind != want || string(m.Body) != want+" body" || m.Worker != "w1" || m.Delivery != 1 || m.Seq == 0 || m.Time.IsZero() {
			t.Fatalf("message %+v, want kind %s", m, want)
		}
		msgs = append(msgs, m)
	}
	// Resuming after the first sees the rest only.
	ch2, err := e.coord.Watch(ctx, "repo-a", "t1", 1, msgs[0].Seq)
	if err != nil {
		t.Fatal(err)
	}
	if m := testkit.Receive(t, 30*time.Second, "the resumed watch", ch2); m.Seq != msgs[1].Seq {
		t.Fatalf("resumed at %+v, want seq %d", m, msgs[1].Seq)
	}
	// The lease was freed.
	if _, err := e.coord.leases.Get(ctx, runKey("repo-a", "t1", 1)); err == nil {
		t.Fatal("the lease is still held after the handler returned")
	}
}

func TestWatchSeesLaterMessagesLive(t *testing.T) {
	e := newEnv(t)
	f, _ := e.worker("w1", []string{"repo-a"})
	ctx, cancel := context.WithCancel(testkit.Context(t, 30*time.Second))
	defer cancel()
	ch, err := e.coord.Watch(ctx, "repo-a", "t1", 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	work(t, f, info("w1", []string{"repo-a"}, []string{"codex"}), func(ctx context.Context, c *Claim) error {
		return c.Send(ctx, "hello", nil)
	})
	offer(t, e.coord, Offer{Repo: "repo-a", Task: "t1", Run: 1, Agent: "codex"})
	if m := testkit.Receive(t, 30*time.Second, "the live message", ch); m.Kind != "hello" {
		t.Fatalf("got %+v", m)
	}
	cancel()
	for m := range ch {
		t.Fatalf("a message after the watch ended: %+v", m)
	}
}

func TestOpenWorkerTakesTheBucketsTimes(t *testing.T) {
	e := newEnv(t)
	nc := e.workerConn("w1", []string{"repo-a"})
	f, err := OpenWorker(testkit.Context(t, 10*time.Second), nc, Options{LeaseTTL: time.Hour, Heartbeat: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	want := testOptions()
	if f.o.LeaseTTL != want.LeaseTTL || f.o.Heartbeat != want.Heartbeat {
		t.Fatalf("worker's lease %v heartbeat %v, want the coordinator's %v %v", f.o.LeaseTTL, f.o.Heartbeat, want.LeaseTTL, want.Heartbeat)
	}
}

func TestOfferDeduplicated(t *testing.T) {
	e := newEnv(t)
	o := Offer{Repo: "repo-a", Task: "t1", Run: 1, Agent: "codex"}
	offer(t, e.coord, o)
	offer(t, e.coord, o)
	ctx := testkit.Context(t, 30*time.Second)
	st, err := e.coord.js.Stream(ctx, offerStream("repo-a"))
	if err != nil {
		t.Fatal(err)
	}
	if si, err := st.Info(ctx); err != nil || si.State.Msgs != 1 {
		t.Fatalf("stream holds %v offers (%v), want 1", si.State.Msgs, err)
	}
	var mu sync.Mutex
	runs := 0
	f, _ := e.worker("w1", []string{"repo-a"})
	work(t, f, info("w1", []string{"repo-a"}, []string{"codex"}), func(ctx context.Context, c *Claim) error {
		mu.Lock()
		runs++
		mu.Unlock()
		return nil
	})
	e.settled("repo-a", "codex")
	// Offered again after it ran: still a duplicate. The stream lets go
	// of an acked offer a moment after its consumer counts the ack, so
	// the re-offer is made once the first is gone, and must not come back.
	gone := func() bool {
		si, err := st.Info(ctx)
		return err == nil && si.State.Msgs == 0
	}
	testkit.WaitFor(t, 30*time.Second, "the acked offer gone from the stream", gone)
	offer(t, e.coord, o)
	if !gone() {
		t.Fatal("the stream holds the offer made again after it ran")
	}
	e.settled("repo-a", "codex")
	mu.Lock()
	defer mu.Unlock()
	if runs != 1 {
		t.Fatalf("ran %d times", runs)
	}
}

func TestOfferValidates(t *testing.T) {
	e := newEnv(t)
	ctx := testkit.Context(t, 10*time.Second)
	for _, o := range []Offer{
		{Repo: "Repo", Task: "t", Run: 1, Agent: "codex"},
		{Repo: "r", Task: "t.1", Run: 1, Agent: "codex"},
		{Repo: "r", Task: "t", Run: 0, Agent: "codex"},
		{Repo: "r", Task: "t", Run: 1, Agent: "Codex"},
		{Repo: "r", Task: "t", Run: 1, Agent: "codex", Prefer: "a.b"},
		{Repo: fmt.Sprintf("%065d", 0), Task: "t", Run: 1, Agent: "codex"},
	} {
		if err := e.coord.Offer(ctx, o); err == nil {
			t.Errorf("Offer(%+v) succeeded", o)
		}
	}
}

func TestOpenTwiceAtOnce(t *testing.T) {
	e := newEnv(t)
	errs := make(chan error, 2)
	for range 2 {
		go func() {
			_, err := Open(testkit.Context(t, 30*time.Second), e.coord.nc, testOptions())
			errs <- err
		}()
	}
	for range 2 {
		if err := testkit.Receive(t, 30*time.Second, "Open", errs); err != nil {
			t.Fatal(err)
		}
	}
}
