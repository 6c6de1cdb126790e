package fleet

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/testkit"
)

// recorder is a handler that reports each claim and keeps what ran.
type recorder struct {
	mu   sync.Mutex
	ran  []*Claim
	runs chan *Claim
}

func newRecorder() *recorder { return &recorder{runs: make(chan *Claim, 16)} }

func (r *recorder) handle(_ context.Context, c *Claim) error {
	r.mu.Lock()
	r.ran = append(r.ran, c)
	r.mu.Unlock()
	r.runs <- c
	return nil
}

func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.ran)
}

func TestRoutingByAgent(t *testing.T) {
	e := newEnv(t)
	codex := newRecorder()
	fa, _ := e.worker("codex-only", []string{"repo-a"})
	work(t, fa, info("codex-only", []string{"repo-a"}, []string{"codex"}), codex.handle)
	offer(t, e.coord, Offer{Repo: "repo-a", Task: "t1", Run: 1, Agent: "claude-code"})
	// The codex worker runs a codex offer made after it: it is fetching.
	offer(t, e.coord, Offer{Repo: "repo-a", Task: "t2", Run: 1, Agent: "codex"})
	if c := testkit.Receive(t, 30*time.Second, "the codex run", codex.runs); c.Task != "t2" {
		t.Fatalf("codex worker ran %s", c.Task)
	}
	claude := newRecorder()
	fb, _ := e.worker("claude", []string{"repo-a"})
	work(t, fb, info("claude", []string{"repo-a"}, []string{"claude-code"}), claude.handle)
	if c := testkit.Receive(t, 30*time.Second, "the claude-code run", claude.runs); c.Task != "t1" {
		t.Fatalf("claude worker ran %s", c.Task)
	}
	e.settled("repo-a", "claude-code")
	if n := codex.count(); n != 1 {
		t.Fatalf("the codex worker ran %d runs, want 1", n)
	}
}

func TestRoutingByLabels(t *testing.T) {
	e := newEnv(t)
	plain := newRecorder()
	fa, _ := e.worker("plain", []string{"repo-a"})
	work(t, fa, info("plain", []string{"repo-a"}, []string{"codex"}, "os=linux"), plain.handle)
	offer(t, e.coord, Offer{Repo: "repo-a", Task: "gpu-task", Run: 1, Agent: "codex", Labels: []string{"gpu", "os=linux"}})
	// Wait until the plain worker has seen and left it at least once.
	ctx := testkit.Context(t, 30*time.Second)
	testkit.WaitFor(t, 30*time.Second, "the plain worker to leave the gpu offer", func() bool {
		c, err := e.coord.js.Consumer(ctx, offerStream("repo-a"), "codex")
		if err != nil {
			return false
		}
		ci, err := c.Info(ctx)
		return err == nil && ci.NumRedelivered+ci.NumAckPending > 0
	})
	gpu := newRecorder()
	fb, _ := e.worker("gpu", []string{"repo-a"})
	work(t, fb, info("gpu", []string{"repo-a"}, []string{"codex"}, "gpu", "os=linux"), gpu.handle)
	c := testkit.Receive(t, 30*time.Second, "the gpu run", gpu.runs)
	if c.Task != "gpu-task" || c.Delivery != 1 {
		t.Fatalf("gpu worker ran %s delivery %d (skips must not count)", c.Task, c.Delivery)
	}
	e.settled("repo-a", "codex")
	if n := plain.count(); n != 0 {
		t.Fatalf("the worker without the gpu label ran %d runs", n)
	}
}

func TestSlotsCap(t *testing.T) {
	e := newEnv(t)
	var now, most atomic.Int32
	started := make(chan string, 8)
	release := make(chan struct{})
	f, _ := e.worker("w1", []string{"repo-a"})
	work(t, f, info("w1", []string{"repo-a"}, []string{"codex", "command"}), func(ctx context.Context, c *Claim) error {
		n := now.Add(1)
		defer now.Add(-1)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		started <- c.Task
		select {
		case <-release:
		case <-ctx.Done():
		}
		return nil
	})
	// Two agents: two fetch loops compete for the one slot.
	for _, task := range []string{"a", "b", "c"} {
		offer(t, e.coord, Offer{Repo: "repo-a", Task: task, Run: 1, Agent: "codex"})
		offer(t, e.coord, Offer{Repo: "repo-a", Task: task + "x", Run: 1, Agent: "command"})
	}
	for range 6 {
		testkit.Receive(t, 30*time.Second, "a run to start", started)
		if m := most.Load(); m != 1 {
			t.Fatalf("%d handlers ran at once on a worker of 1 slot", m)
		}
		release <- struct{}{}
	}
	e.settled("repo-a", "codex")
	e.settled("repo-a", "command")
}

func TestPrefer(t *testing.T) {
	e := newEnv(t)
	o := testOptions()
	o.PreferFor = testkit.Scale(20 * time.Second)
	other, preferred := newRecorder(), newRecorder()
	for id, r := range map[string]*recorder{"other": other, "preferred": preferred} {
		nc := e.workerConn(id, []string{"repo-a"})
		f, err := OpenWorker(testkit.Context(t, 10*time.Second), nc, o)
		if err != nil {
			t.Fatal(err)
		}
		work(t, f, info(id, []string{"repo-a"}, []string{"codex"}), r.handle)
	}
	testkit.WaitFor(t, 30*time.Second, "both workers present", func() bool {
		ws, err := e.coord.Workers(testkit.Context(t, 10*time.Second))
		return err == nil && len(ws) == 2
	})
	for _, task := range []string{"t1", "t2", "t3"} {
		offer(t, e.coord, Offer{Repo: "repo-a", Task: task, Run: 1, Agent: "codex", Prefer: "preferred"})
		c := testkit.Receive(t, 30*time.Second, "the preferred worker's run", preferred.runs)
		if c.Task != task || c.Prefer != "preferred" {
			t.Fatalf("preferred worker ran %+v", c.Offer)
		}
	}
	// A Prefer naming a worker that is not alive is dropped at once.
	offer(t, e.coord, Offer{Repo: "repo-a", Task: "t4", Run: 1, Agent: "codex", Prefer: "gone"})
	var c *Claim
	select {
	case c = <-other.runs:
	case c = <-preferred.runs:
	case <-time.After(testkit.Scale(30 * time.Second)):
		t.Fatal("nobody ran the offer preferring a dead worker")
	}
	if c.Prefer != "" {
		t.Fatalf("Prefer of a dead worker kept: %q", c.Prefer)
	}
	if n := other.count(); n > 1 {
		t.Fatalf("the other worker ran %d offers preferring someone else", n)
	}
}
