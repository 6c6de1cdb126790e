package testkit

import (
	"net"
	"testing"
)

// FreePorts finds n free loopback ports, holding them all at once so that
// they differ: for servers that must know each other's ports before any
// of them starts (a cluster's routes).
func FreePorts(tb testing.TB, n int) []int {
	tb.Helper()
	ports := make([]int, 0, n)
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			tb.Fatal(err)
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports
}
