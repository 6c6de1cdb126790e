package bench_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"syscall"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/mcpcoding"
	"github.com/sudocode/sudocode/internal/workspace"
)

// inProcess serves workspace dir with the coding server's stdio transport
// over pipes inside the benchmark's own process, so that
// -cpuprofile sees the server's whole tools/call path.
func inProcess(b *testing.B, dir string) *rawClient {
	root, err := workspace.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	s := mcpcoding.New(root, mcpcoding.Options{Version: "bench"})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.ServeStdio(ctx, inR, outW); close(done) }()
	b.Cleanup(func() { inW.Close(); cancel(); <-done; s.Close(context.Background()) })
	c := &rawClient{in: inW, out: bufio.NewReaderSize(outR, 1<<20)}
	c.roundTrip(b, "initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}`)
	fmt.Fprintln(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return c
}

// inProcessHTTP serves workspace dir with the coding server's Streamable
// HTTP handler on a loopback listener in this process.
func inProcessHTTP(b *testing.B, dir string) *httpClient {
	root, err := workspace.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	s := mcpcoding.New(root, mcpcoding.Options{Version: "bench"})
	srv := httptest.NewServer(s.HTTPHandler())
	b.Cleanup(func() { srv.Close(); s.Close(context.Background()) })
	h := &httpClient{url: srv.URL + "/mcp", c: srv.Client()}
	h.call(b, "initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}`)
	h.post(b, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return h
}

// BenchmarkCodingInProcess runs read_file of a 2,000-line file (over
// stdio and over HTTP),
// search_text on the Go source tree and git_status on a repository of
// 2,000 files through the coding server's tools/call path in this
// process: what to profile (go test -bench CodingInProcess -cpuprofile).
func BenchmarkCodingInProcess(b *testing.B) {
	ws, name := writeReadFileTree(b)
	reads := inProcess(b, ws)
	b.Run("read_file", func(b *testing.B) {
		withCPU(b, func() { reads.roundTrip(b, "tools/call", `{"name":"read_file","arguments":{"path":"`+name+`"}}`) })
	})
	web := inProcessHTTP(b, ws)
	b.Run("read_file_http", func(b *testing.B) {
		withCPU(b, func() { web.call(b, "tools/call", `{"name":"read_file","arguments":{"path":"`+name+`"}}`) })
	})
	searches := inProcess(b, goSrc(b))
	for _, q := range searchQueries {
		b.Run("search_text/"+q.name, func(b *testing.B) {
			withCPU(b, func() { searches.roundTrip(b, "tools/call", `{"name":"search_text","arguments":`+q.args+`}`) })
		})
	}
	status := inProcess(b, gitStatusRepo(b))
	b.Run("git_status", func(b *testing.B) {
		withCPU(b, func() { status.roundTrip(b, "tools/call", `{"name":"git_status","arguments":{}}`) })
	})
}

// withCPU runs op b.N times and reports the CPU time this process spent
// per call (user and system, every thread: the server's work and the
// client's reading of the response), which other load on a shared
// machine disturbs far less than the wall time. The git processes a call
// starts are not in it.
func withCPU(b *testing.B, op func()) {
	var before, after syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	for b.Loop() {
		op()
	}
	syscall.Getrusage(syscall.RUSAGE_SELF, &after)
	cpu := time.Duration(syscall.TimevalToNsec(after.Utime) - syscall.TimevalToNsec(before.Utime) +
		syscall.TimevalToNsec(after.Stime) - syscall.TimevalToNsec(before.Stime))
	b.ReportMetric(float64(cpu.Microseconds())/1e3/float64(b.N), "cpu-ms/op")
}
