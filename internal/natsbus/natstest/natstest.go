// Package natstest starts NATS servers for tests: a JetStream cluster of
// in-process nodes on loopback.
package natstest

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/natsbus"
	"github.com/sudocode/sudocode/internal/testkit"
)

// StartCluster starts n nodes routed to each other, admitting users, and
// waits until their JetStream elected a leader; the test's end shuts them
// down.
func StartCluster(tb testing.TB, n int, users []natsbus.User) []*natsbus.Server {
	tb.Helper()
	ports := testkit.FreePorts(tb, n)
	var routes []string
	for _, p := range ports {
		routes = append(routes, fmt.Sprintf("nats-route://127.0.0.1:%d", p))
	}
	nodes := make([]*natsbus.Server, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			nodes[i], errs[i] = natsbus.Start(testkit.Context(tb, 30*time.Second), natsbus.ServerOptions{
				Dir: tb.TempDir(), Name: NodeName(i), Users: users,
				Cluster: &natsbus.ClusterOptions{Name: "test", Port: ports[i], Routes: routes, Secret: "s3cret"},
			})
		})
	}
	wg.Wait()
	for i, s := range nodes {
		if errs[i] != nil {
			tb.Fatal(errs[i])
		}
		tb.Cleanup(s.Shutdown)
	}
	for _, s := range nodes {
		if err := s.WaitJetStream(testkit.Context(tb, 60*time.Second)); err != nil {
			tb.Fatal(err)
		}
	}
	return nodes
}

// ClientURLs are the nodes' client URLs, comma-separated, as Connect
// takes them.
func ClientURLs(nodes []*natsbus.Server) string {
	urls := make([]string, 0, len(nodes))
	for _, s := range nodes {
		urls = append(urls, s.ClientURL())
	}
	return strings.Join(urls, ",")
}

// NodeName is the name of node i of StartCluster's nodes, as JetStream
// names a stream's leader.
func NodeName(i int) string { return fmt.Sprintf("n%d", i+1) }
