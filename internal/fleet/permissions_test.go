package fleet

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/sudocode/sudocode/internal/testkit"
)

// violations collects the permission violations the server reports to a
// connection (nats.go reports them out of band).
func violations() (nats.Option, <-chan string) {
	ch := make(chan string, 64)
	return nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
		if strings.Contains(strings.ToLower(err.Error()), "permissions violation") {
			select {
			case ch <- err.Error():
			default:
			}
		}
	}), ch
}

// violation waits for a reported violation that mentions subject.
func violation(t *testing.T, ch <-chan string, subject string) {
	t.Helper()
	for {
		v := testkit.Receive(t, 30*time.Second, "a permission violation on "+subject, ch)
		if strings.Contains(v, subject) {
			return
		}
	}
}

func TestWorkerPermissions(t *testing.T) {
	e := newEnv(t)
	offer(t, e.coord, Offer{Repo: "repo-a", Task: "ta", Run: 1, Agent: "codex", Body: []byte("a")})
	offer(t, e.coord, Offer{Repo: "repo-b", Task: "tb", Run: 1, Agent: "codex", Body: []byte("secret b")})
	// Another worker, of repo-b, has a presence.
	fo, _ := e.worker("other", []string{"repo-b"})
	otherRec := newRecorder()
	work(t, fo, info("other", []string{"repo-b"}, []string{"claude-code"}), otherRec.handle)

	opt, denied := violations()
	f, nc := e.worker("w1", []string{"repo-a"}, opt)

	// Its own repository's offers come, and it can send on their runs.
	r := newRecorder()
	ra := work(t, f, info("w1", []string{"repo-a"}, []string{"codex"}), func(ctx context.Context, c *Claim) error {
		if err := c.Send(ctx, "note", nil); err != nil {
			return err
		}
		return r.handle(ctx, c)
	})
	if c := testkit.Receive(t, 30*time.Second, "repo-a's offer", r.runs); c.Task != "ta" {
		t.Fatalf("ran %s", c.Task)
	}
	e.settled("repo-a", "codex")
	ctx := testkit.Context(t, 30*time.Second)
	wa, err := e.coord.Watch(ctx, "repo-a", "ta", 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if m := testkit.Receive(t, 30*time.Second, "w1's run message", wa); m.Kind != "note" || m.Worker != "w1" {
		t.Fatalf("message %+v", m)
	}
	ra.stop()
	ra.wait(t)

	// Working repo-b with w1's credentials is refused at the consumer.
	rb := work(t, f, info("w1", []string{"repo-b"}, []string{"codex"}), r.handle)
	violation(t, denied, "$JS.API.CONSUMER.INFO.SUDOCODE_OFFERS_repo-b.codex")
	rb.stop()
	rb.wait(t)

	// Pulling repo-b's queue directly is refused too.
	nc.PublishRequest("$JS.API.CONSUMER.MSG.NEXT.SUDOCODE_OFFERS_repo-b.codex", nc.NewInbox(), []byte(`{"batch":1}`))
	violation(t, denied, "$JS.API.CONSUMER.MSG.NEXT.SUDOCODE_OFFERS_repo-b.codex")

	// So is watching repo-b's runs.
	// The refused request gets no answer: a short wait is all it needs.
	wctx, cancel := context.WithTimeout(ctx, testkit.Scale(time.Second))
	ch, err := f.Watch(wctx, "repo-b", "tb", 1, 0)
	if err == nil {
		for m := range ch {
			t.Fatalf("w1 read repo-b's run message %+v", m)
		}
	}
	cancel()
	violation(t, denied, "$JS.API.CONSUMER.CREATE.SUDOCODE_RUNS")

	// Sending as another worker, or on another repository's run, is refused.
	nc.Publish("sudocode.run.repo-a.ta.1.other", []byte("forged"))
	violation(t, denied, "sudocode.run.repo-a.ta.1.other")
	nc.Publish("sudocode.run.repo-b.tb.1.w1", []byte("intruding"))
	violation(t, denied, "sudocode.run.repo-b.tb.1.w1")

	// Writing another worker's presence, or reading it, is refused.
	nc.Publish("$KV.sudocode-workers.other", []byte("{}"))
	violation(t, denied, "$KV.sudocode-workers.other")
	if _, err := f.workers.Get(testkit.Context(t, time.Second), "other"); err == nil {
		t.Fatal("w1 read another worker's presence")
	}
	violation(t, denied, "$JS.API.DIRECT.GET.KV_sudocode-workers")

	// Nothing of repo-b reached w1, and repo-b's offer is still queued.
	if n := r.count(); n != 1 {
		t.Fatalf("w1 ran %d runs, want only repo-a's", n)
	}
	c, err := e.coord.js.Consumer(ctx, offerStream("repo-b"), "codex")
	if err != nil {
		t.Fatal(err)
	}
	if ci, err := c.Info(ctx); err != nil || ci.NumPending != 1 || ci.Delivered.Consumer != 0 {
		t.Fatalf("repo-b's offer: %+v %v", ci, err)
	}
	ws := workers(t, e.coord)
	if len(ws) != 1 || ws[0].ID != "other" || ws[0].Host != "host-other" {
		t.Fatalf("presence after the forging attempts: %+v", ws)
	}
}
