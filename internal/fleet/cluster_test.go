package fleet

import (
	"context"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/natsbus"
	"github.com/sudocode/sudocode/internal/natsbus/natstest"
	"github.com/sudocode/sudocode/internal/testkit"
)

// With three nodes and three replicas, losing a node loses no offer and
// no run message, and workers carry on.
func TestClusterSurvivesLosingANode(t *testing.T) {
	coordCreds, _ := natsbus.NewCreds("coordinator")
	workerCreds, _ := natsbus.NewCreds("w1")
	wperms := WorkerPermissions("w1", []string{"repo-a"})
	users := []natsbus.User{coordCreds.User(CoordinatorPermissions()), workerCreds.User(&wperms)}
	nodes := natstest.StartCluster(t, 3, users)
	all := natstest.ClientURLs(nodes)
	opts := testOptions()
	opts.Replicas = 3
	ctx := testkit.Context(t, 240*time.Second)
	coordNC := connect(t, all, coordCreds)
	var coord *Fleet
	// A new cluster elects a leader for each of the fleet's replicated
	// streams: seconds each when its nodes are starved of CPU.
	var openErr error
	if !testkit.Eventually(120*time.Second, func() bool {
		coord, openErr = Open(ctx, coordNC, opts)
		return openErr == nil
	}) {
		t.Fatalf("the fleet did not open on the new cluster: %v", openErr)
	}
	workerNC := connect(t, all, workerCreds)
	wf, err := OpenWorker(ctx, workerNC, opts)
	if err != nil {
		t.Fatal(err)
	}
	gate := make(chan struct{})
	ran := make(chan *Claim, 8)
	work(t, wf, info("w1", []string{"repo-a"}, []string{"codex"}), func(ctx context.Context, c *Claim) error {
		if c.Task == "t2" {
			<-gate // held until a node is gone
		}
		if err := c.Send(ctx, "done", []byte(c.Task)); err != nil {
			return err
		}
		ran <- c
		return nil
	})
	offer(t, coord, Offer{Repo: "repo-a", Task: "t1", Run: 1, Agent: "codex"})
	testkit.Receive(t, 60*time.Second, "t1 to run", ran)
	offer(t, coord, Offer{Repo: "repo-a", Task: "t2", Run: 1, Agent: "codex"})
	// t3 waits in the queue behind t2 (one slot) while the node goes.
	offer(t, coord, Offer{Repo: "repo-a", Task: "t3", Run: 1, Agent: "codex"})

	// Lose the offer stream's leader, the worst node to lose.
	st, err := coord.js.Stream(ctx, offerStream("repo-a"))
	if err != nil {
		t.Fatal(err)
	}
	si, err := st.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	lost := false
	for i, s := range nodes {
		if natstest.NodeName(i) == si.Cluster.Leader {
			s.Shutdown()
			lost = true
		}
	}
	if !lost {
		t.Fatalf("the leader %q is none of the nodes", si.Cluster.Leader)
	}
	close(gate)
	got := map[string]bool{}
	for range 2 {
		c := testkit.Receive(t, 60*time.Second, "the queued runs after losing a node", ran)
		got[c.Task] = true
	}
	if !got["t2"] || !got["t3"] {
		t.Fatalf("ran %v after losing a node", got)
	}
	// A new offer after the loss runs too.
	testkit.WaitFor(t, 60*time.Second, "an offer accepted after losing a node", func() bool {
		octx, cancel := context.WithTimeout(ctx, testkit.Scale(5*time.Second))
		defer cancel()
		return coord.Offer(octx, Offer{Repo: "repo-a", Task: "t4", Run: 1, Agent: "codex"}) == nil
	})
	if c := testkit.Receive(t, 60*time.Second, "t4 to run", ran); c.Task != "t4" {
		t.Fatalf("ran %s", c.Task)
	}
	for _, task := range []string{"t1", "t2", "t3", "t4"} {
		var ch <-chan RunMsg
		testkit.WaitFor(t, 30*time.Second, "a watch of "+task, func() bool {
			var err error
			ch, err = coord.Watch(ctx, "repo-a", task, 1, 0)
			return err == nil
		})
		if m := testkit.Receive(t, 60*time.Second, task+"'s run message", ch); m.Kind != "done" || string(m.Body) != task {
			t.Fatalf("%s: %+v", task, m)
		}
	}
}
