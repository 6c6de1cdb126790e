package bench_test

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/testkit"
)

// httpClient speaks the coding server's Streamable HTTP (JSON responses)
// with nothing between the benchmark and the socket but net/http.
type httpClient struct {
	url, session string
	c            *http.Client
	id           int
}

func (h *httpClient) post(b *testing.B, body string) []byte {
	req, _ := http.NewRequest(http.MethodPost, h.url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if h.session != "" {
		req.Header.Set("Mcp-Session-Id", h.session)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	}
	resp, err := h.c.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
		h.session = id
	}
	if resp.StatusCode >= 300 || bytes.Contains(out, []byte(`"isError":true`)) {
		b.Fatalf("HTTP %d: %s", resp.StatusCode, out)
	}
	return out
}

func (h *httpClient) call(b *testing.B, method, params string) []byte {
	h.id++
	return h.post(b, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, h.id, method, params))
}

// startHTTP starts coding-tools-mcp over HTTP on a free loopback port and
// initialises a session.
func startHTTP(b *testing.B, bin, workspace string) *httpClient {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cmd := exec.Command(bin, "--workspace", workspace, "--port", strconv.Itoa(port))
	cmd.Env = os.Environ()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	h := &httpClient{url: fmt.Sprintf("http://127.0.0.1:%d/mcp", port), c: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}}
	testkit.WaitFor(b, 10*time.Second, fmt.Sprintf("coding-tools-mcp to listen on port %d", port), func() bool {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	h.call(b, "initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}`)
	h.post(b, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return h
}

// latencies runs op b.N times and reports the median and 95th percentile
// of its wall time, in milliseconds.
func latencies(b *testing.B, op func()) {
	var d []time.Duration
	for b.Loop() {
		t := time.Now()
		op()
		d = append(d, time.Since(t))
	}
	slices.Sort(d)
	b.ReportMetric(float64(d[len(d)/2].Microseconds())/1e3, "p50-ms")
	b.ReportMetric(float64(d[min(len(d)-1, len(d)*95/100)].Microseconds())/1e3, "p95-ms")
}

// BenchmarkExec measures an exec_command round trip (sandbox on: Landlock,
// PID namespace, private home) over stdio and HTTP, for `true` and
// `echo hi`, against starting the same command directly through /bin/sh
// (the peer, measured in the same run). Run by bench/exec.sh.
func BenchmarkExec(b *testing.B) {
	bin := testkit.Binary(b, "./cmd/coding-tools-mcp")
	ws := b.TempDir()
	stdio := startStdio(b, exec.Command(bin, "--stdio", "--workspace", ws))
	web := startHTTP(b, bin, ws)
	for _, c := range []string{"true", "echo hi"} {
		args := fmt.Sprintf(`{"name":"exec_command","arguments":{"cmd":%q,"yield_time_ms":10000}}`, c)
		name := strings.ReplaceAll(c, " ", "_")
		b.Run(name+"/native", func(b *testing.B) {
			latencies(b, func() {
				if err := exec.Command("/bin/sh", "-c", c).Run(); err != nil {
					b.Fatal(err)
				}
			})
		})
		b.Run(name+"/stdio", func(b *testing.B) {
			latencies(b, func() { stdio.roundTrip(b, "tools/call", args) })
		})
		b.Run(name+"/http", func(b *testing.B) {
			latencies(b, func() { web.call(b, "tools/call", args) })
		})
	}
}

// BenchmarkGitStatus measures git_status (sandboxed git) over stdio on a
// repository of 2,000 committed files with 20 changed and 20 untracked,
// against `git status --porcelain=v2` started directly on it in the same
// run. Run by bench/exec.sh.
func BenchmarkGitStatus(b *testing.B) {
	bin := testkit.Binary(b, "./cmd/coding-tools-mcp")
	repo := gitStatusRepo(b)
	stdio := startStdio(b, exec.Command(bin, "--stdio", "--workspace", repo))
	b.Run("native", func(b *testing.B) {
		latencies(b, func() {
			c := exec.Command("git", "status", "--porcelain=v2", "-z", "--untracked-files=all")
			c.Dir = repo
			if err := c.Run(); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("stdio", func(b *testing.B) {
		latencies(b, func() { stdio.roundTrip(b, "tools/call", `{"name":"git_status","arguments":{}}`) })
	})
}

// gitStatusRepo is a repository of 2,000 committed files in 50
// directories with 20 of them changed and 20 new files untracked.
func gitStatusRepo(b *testing.B) string {
	repo := testkit.Repo(b)
	for i := range 2000 {
		dir := filepath.Join(repo, "pkg", strconv.Itoa(i%50))
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(dir, "f"+strconv.Itoa(i)+".txt"), []byte("line\n"), 0o644)
	}
	testkit.Git(b, repo, "add", "-A")
	testkit.Git(b, repo, "commit", "-q", "-m", "files")
	for i := range 20 {
		os.WriteFile(filepath.Join(repo, "pkg", strconv.Itoa(i), "f"+strconv.Itoa(i)+".txt"), []byte("changed\n"), 0o644)
		os.WriteFile(filepath.Join(repo, "new"+strconv.Itoa(i)+".txt"), []byte("new\n"), 0o644)
	}
	return repo
}
