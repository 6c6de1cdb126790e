package fleet

import (
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/natsbus"
	"github.com/sudocode/sudocode/internal/testkit"
)

// freePorts finds n free loopback ports, holding them all at once so
// they differ: a JetStream cluster's nodes list each other's routes
// before they start.
func freePorts(t *testing.T, n int) []int {
	t.Helper()
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports
}

// With three nodes and three replicas, losing a node loses no offer and
// no run message, and workers carry on.
func TestClusterSurvivesLosingANode(t *testing.T) {
	coordCreds, _ := natsbus.NewCreds("coordinator")
	workerCreds, _ := natsbus.NewCreds("w1")
	wperms := WorkerPermissions("w1", []string{"repo-a"})
	users := []natsbus.User{coordCreds.User(CoordinatorPermissions()), workerCreds.User(&wperms)}
	ports := freePorts(t, 3)
	var routes []string
	for _, p := range ports {
		routes = append(routes, fmt.Sprintf("nats-route://127.0.0.1:%d", p))
	}
	nodes := make([]*natsbus.Server, 3)
	errs := make([]error, 3)
	var wg sync.WaitGroup
	for i := range 3 {
		wg.Go(func() {
			nodes[i], errs[i] = natsbus.Start(testkit.Context(t, 30*time.Second), natsbus.ServerOptions{
				Dir: t.TempDir(), Name: fmt.Sprintf("n%d", i+1), Users: users,
				Cluster: &natsbus.ClusterOptions{Name: "fleet", Port: ports[i], Routes: routes, Secret: "s3cret"},
			})
		})
	}
	wg.Wait()
	var urls []string
	for i, s := range nodes {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		t.Cleanup(s.Shutdown)
		if err := s.WaitJetStream(testkit.Context(t, 60*time.Second)); err != nil {
			t.Fatal(err)
		}
		urls = append(urls, s.ClientURL())
	}
	all := strings.Join(urls, ",")
	opts := testOptions()
	opts.Replicas = 3
	ctx := testkit.Context(t, 120*time.Second)
	coordNC := connect(t, all, coordCreds)
	var coord *Fleet
	testkit.WaitFor(t, 60*time.Second, "the fleet opened on the new cluster", func() bool {
		var err error
		coord, err = Open(ctx, coordNC, opts)
		return err == nil
	})
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
	for _, s := range nodes {
		if s.Name() == si.Cluster.Leader {
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
