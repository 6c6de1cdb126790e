package natsbus

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/sudocode/sudocode/internal/testkit"
)

// startCluster starts n nodes routed to each other and waits until their
// JetStream elected a leader.
func startCluster(t *testing.T, n int, users []User) []*Server {
	t.Helper()
	ports := testkit.FreePorts(t, n)
	var routes []string
	for _, p := range ports {
		routes = append(routes, fmt.Sprintf("nats-route://127.0.0.1:%d", p))
	}
	nodes := make([]*Server, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			nodes[i], errs[i] = Start(testkit.Context(t, 30*time.Second), ServerOptions{
				Dir:     t.TempDir(),
				Name:    fmt.Sprintf("n%d", i+1),
				Users:   users,
				Cluster: &ClusterOptions{Name: "test", Port: ports[i], Routes: routes, Secret: "s3cret"},
			})
		})
	}
	wg.Wait()
	for i, s := range nodes {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		t.Cleanup(s.Shutdown)
	}
	for _, s := range nodes {
		if err := s.WaitJetStream(testkit.Context(t, 60*time.Second)); err != nil {
			t.Fatal(err)
		}
	}
	return nodes
}

// ClusterURLs is the client URLs of nodes, comma-separated, for Connect.
func clientURLs(nodes []*Server) string {
	var urls []string
	for _, s := range nodes {
		urls = append(urls, s.ClientURL())
	}
	return strings.Join(urls, ",")
}

func TestClusterSurvivesLosingANode(t *testing.T) {
	alice := newCreds(t, "alice")
	nodes := startCluster(t, 3, []User{alice.User(nil)})
	nc := connect(t, clientURLs(nodes), alice)
	js, _ := jetstream.New(nc)
	ctx := testkit.Context(t, 60*time.Second)
	var st jetstream.Stream
	// The meta leader may still be settling: creating the first stream is
	// retried until it takes.
	testkit.WaitFor(t, 30*time.Second, "the R3 stream created", func() bool {
		var err error
		st, err = js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{Name: "R3", Subjects: []string{"r3.>"}, Replicas: 3})
		return err == nil
	})
	const n = 20
	for i := range n {
		if _, err := js.Publish(ctx, "r3.m", fmt.Appendf(nil, "%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	info, err := st.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Lose the stream's leader, the worst node to lose.
	var survivors []*Server
	for _, s := range nodes {
		if s.opts.Name == info.Cluster.Leader {
			s.Shutdown()
		} else {
			survivors = append(survivors, s)
		}
	}
	if len(survivors) != 2 {
		t.Fatalf("leader %q is none of the nodes", info.Cluster.Leader)
	}
	nc2 := connect(t, clientURLs(survivors), alice)
	js2, _ := jetstream.New(nc2)
	testkit.WaitFor(t, 30*time.Second, "a publish after losing a node", func() bool {
		pctx, cancel := context.WithTimeout(ctx, testkit.Scale(2*time.Second))
		defer cancel()
		_, err := js2.Publish(pctx, "r3.m", []byte("after"))
		return err == nil
	})
	var st2 jetstream.Stream
	testkit.WaitFor(t, 30*time.Second, "the stream found after losing a node", func() bool {
		var err error
		st2, err = js2.Stream(ctx, "R3")
		return err == nil
	})
	// Read each by sequence; a read may fail while the survivors elect
	// the stream's new leader, so each is retried until it succeeds.
	for i := range n + 1 {
		want := fmt.Sprint(i)
		if i == n {
			want = "after"
		}
		var m *jetstream.RawStreamMsg
		var err error
		testkit.WaitFor(t, 30*time.Second, fmt.Sprintf("message %d read", i+1), func() bool {
			gctx, cancel := context.WithTimeout(ctx, testkit.Scale(2*time.Second))
			defer cancel()
			m, err = st2.GetMsg(gctx, uint64(i+1))
			return err == nil
		})
		if string(m.Data) != want {
			t.Fatalf("message %d is %q, want %q", i+1, m.Data, want)
		}
	}
}

func TestClusterOffLoopbackNeedsSecret(t *testing.T) {
	_, err := Start(testkit.Context(t, 10*time.Second), ServerOptions{
		Dir: t.TempDir(), Users: []User{newCreds(t, "a").User(nil)},
		Cluster: &ClusterOptions{Name: "c", Host: "0.0.0.0", Routes: []string{"nats-route://127.0.0.1:1"}},
	})
	if err == nil || !strings.Contains(err.Error(), "Secret") {
		t.Fatalf("a cluster port on every interface without a secret: %v", err)
	}
}
