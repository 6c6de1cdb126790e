package valkeytest

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"
)

// Cluster is a running Valkey Cluster of primaries without replicas,
// assembled with CLUSTER ADDSLOTSRANGE and CLUSTER MEET.
type Cluster struct {
	Nodes []*Server
}

// Addrs are the nodes' addresses.
func (c *Cluster) Addrs() []string {
	addrs := make([]string, len(c.Nodes))
	for i, n := range c.Nodes {
		addrs[i] = n.Addr
	}
	return addrs
}

// Stop stops every node.
func (c *Cluster) Stop() {
	for _, n := range c.Nodes {
		n.Stop()
	}
}

// Flush empties every node.
func (c *Cluster) Flush() error {
	for _, n := range c.Nodes {
		if _, err := n.Do("FLUSHALL"); err != nil {
			return err
		}
	}
	return nil
}

// StartCluster starts n cluster-enabled nodes, splits the 16384 slots
// between them, joins them and waits until the cluster reports ok.
func StartCluster(n int) (*Cluster, error) {
	bin, err := findBinary()
	if err != nil {
		return nil, err
	}
	c := &Cluster{}
	for range n {
		s, err := startClusterNode(bin)
		if err != nil {
			c.Stop()
			return nil, err
		}
		c.Nodes = append(c.Nodes, s)
	}
	const slots = 16384
	for i, s := range c.Nodes {
		lo, hi := i*slots/n, (i+1)*slots/n-1
		if _, err := s.Do("CLUSTER", "ADDSLOTSRANGE", strconv.Itoa(lo), strconv.Itoa(hi)); err != nil {
			c.Stop()
			return nil, err
		}
	}
	for _, s := range c.Nodes[1:] {
		host, port, _ := net.SplitHostPort(s.Addr)
		if _, err := c.Nodes[0].Do("CLUSTER", "MEET", host, port, strconv.Itoa(s.busPort)); err != nil {
			c.Stop()
			return nil, err
		}
	}
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if c.ready() {
			return c, nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	c.Stop()
	return nil, fmt.Errorf("cluster of %d nodes did not reach cluster_state:ok within 20s", n)
}

// ready reports whether every node sees the whole cluster as ok.
func (c *Cluster) ready() bool {
	for _, s := range c.Nodes {
		info, err := s.Do("CLUSTER", "INFO")
		if err != nil || !strings.Contains(info, "cluster_state:ok") ||
			!strings.Contains(info, fmt.Sprintf("cluster_known_nodes:%d", len(c.Nodes))) {
			return false
		}
	}
	return true
}

func startClusterNode(bin string) (*Server, error) {
	var lastErr error
	for range 5 {
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		busPort, err := freePort()
		if err != nil {
			return nil, err
		}
		dir, err := os.MkdirTemp("", "valkeytest-cluster-")
		if err != nil {
			return nil, err
		}
		s, err := launch(bin, dir, port, "--cluster-enabled", "yes", "--cluster-port", strconv.Itoa(busPort),
			"--cluster-config-file", dir+"/nodes.conf", "--cluster-node-timeout", "5000")
		if err == nil {
			s.busPort = busPort
			return s, nil
		}
		lastErr = err
	}
	return nil, lastErr
}
