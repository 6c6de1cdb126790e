package fleet

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/testkit"
)

func workers(t *testing.T, f *Fleet) []Presence {
	t.Helper()
	ws, err := f.Workers(testkit.Context(t, 10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

func capable(t *testing.T, f *Fleet, repo, agent string, labels ...string) bool {
	t.Helper()
	ok, err := f.Capable(testkit.Context(t, 10*time.Second), repo, agent, labels)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

func TestPresence(t *testing.T) {
	e := newEnv(t)
	if ws := workers(t, e.coord); len(ws) != 0 {
		t.Fatalf("workers before any: %+v", ws)
	}
	if capable(t, e.coord, "repo-a", "codex") {
		t.Fatal("capable with no worker")
	}
	started := make(chan struct{}, 1)
	fb, _ := e.worker("b-worker", []string{"repo-a"})
	rb := work(t, fb, info("b-worker", []string{"repo-a"}, []string{"codex"}, "gpu"), func(ctx context.Context, c *Claim) error {
		started <- struct{}{}
		<-ctx.Done()
		return nil
	})
	fa, nca := e.worker("a-worker", []string{"repo-b"})
	work(t, fa, info("a-worker", []string{"repo-b"}, []string{"claude-code"}), newRecorder().handle)
	testkit.WaitFor(t, 30*time.Second, "two workers present", func() bool { return len(workers(t, e.coord)) == 2 })
	ws := workers(t, e.coord)
	if ws[0].ID != "a-worker" || ws[1].ID != "b-worker" {
		t.Fatalf("not sorted by id: %+v", ws)
	}
	b := ws[1]
	if b.Host != "host-b-worker" || !slices.Equal(b.Repos, []string{"repo-a"}) || !slices.Equal(b.CLIs, []string{"codex"}) ||
		!slices.Equal(b.Labels, []string{"gpu"}) || b.Slots != 1 || b.Version != "test" || b.Started.IsZero() || b.Heartbeat.IsZero() {
		t.Fatalf("presence %+v", b)
	}
	if !capable(t, e.coord, "repo-a", "codex", "gpu") || capable(t, e.coord, "repo-a", "codex", "gpu", "arm") ||
		capable(t, e.coord, "repo-a", "claude-code") || !capable(t, e.coord, "repo-b", "claude-code") {
		t.Fatal("Capable disagrees with the presence")
	}

	// Running and Tasks follow the claims.
	offer(t, e.coord, Offer{Repo: "repo-a", Task: "t1", Run: 3, Agent: "codex"})
	testkit.Receive(t, 30*time.Second, "the run to start", started)
	testkit.WaitFor(t, 30*time.Second, "the presence to show the run", func() bool {
		ws := workers(t, e.coord)
		return len(ws) == 2 && ws[1].Running == 1 && slices.Equal(ws[1].Tasks, []string{"repo-a/t1/3"})
	})

	// A clean stop removes the presence; a dead worker's expires.
	rb.stop()
	nca.Close()
	testkit.WaitFor(t, 30*time.Second, "both presences gone", func() bool { return len(workers(t, e.coord)) == 0 })
	if capable(t, e.coord, "repo-b", "claude-code") {
		t.Fatal("capable after the worker died")
	}
}
