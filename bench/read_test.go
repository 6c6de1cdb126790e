package bench_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/testkit"
)

// readFileLines is the size of the file read_file's benchmark reads: the
// tool's own per-call line cap, so one call returns the whole file.
const readFileLines = 2000

// writeReadFileTree writes a workspace holding one Go source file of
// readFileLines lines (the first lines of net/http/server.go: tabs,
// quotes and comments, as code is) and returns the workspace and the
// file's name in it.
func writeReadFileTree(b *testing.B) (string, string) {
	src, err := os.ReadFile(filepath.Join(goSrc(b), "net", "http", "server.go"))
	if err != nil {
		b.Fatal(err)
	}
	lines := bytes.SplitAfter(src, []byte("\n"))
	if len(lines) < readFileLines {
		b.Fatalf("net/http/server.go has %d lines, fewer than %d", len(lines), readFileLines)
	}
	ws := b.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "server.go"), bytes.Join(lines[:readFileLines], nil), 0o644); err != nil {
		b.Fatal(err)
	}
	return ws, "server.go"
}

// BenchmarkReadFile measures a read_file round trip of a whole
// 2,000-line file over stdio and over HTTP on a running coding-tools-mcp,
// against the peer measured in the same run: `sed -n 1,2000p` of the same
// file started directly, its output read through a pipe; and the CPU time
// of the call in process (the same server on pipes). Run by bench/read.sh,
// which prints the ratios.
func BenchmarkReadFile(b *testing.B) {
	bin := testkit.Binary(b, "./cmd/coding-tools-mcp")
	ws, name := writeReadFileTree(b)
	stdio := startStdio(b, exec.Command(bin, "--stdio", "--workspace", ws))
	web := startHTTP(b, bin, ws)
	args := `{"name":"read_file","arguments":{"path":"` + name + `"}}`
	// Each response is checked once for the whole file, so the figures
	// are of calls that did the work.
	whole := func(b *testing.B, res []byte) {
		if !bytes.Contains(res, []byte(`"output_lines":2000`)) || bytes.Contains(res, []byte(`"truncated":true`)) {
			b.Fatalf("read_file did not return the whole file: %.300s", res)
		}
	}
	b.Run("native", func(b *testing.B) {
		latencies(b, func() {
			out, err := exec.Command("sed", "-n", "1,2000p", filepath.Join(ws, name)).Output()
			if err != nil || strings.Count(string(out), "\n") != readFileLines {
				b.Fatalf("sed: %v (%d lines)", err, strings.Count(string(out), "\n"))
			}
		})
	})
	b.Run("stdio", func(b *testing.B) {
		whole(b, stdio.roundTrip(b, "tools/call", args))
		latencies(b, func() { stdio.roundTrip(b, "tools/call", args) })
	})
	b.Run("http", func(b *testing.B) {
		whole(b, web.call(b, "tools/call", args))
		latencies(b, func() { web.call(b, "tools/call", args) })
	})
	inproc := inProcess(b, ws)
	b.Run("inprocess", func(b *testing.B) {
		whole(b, inproc.roundTrip(b, "tools/call", args))
		withCPU(b, func() { inproc.roundTrip(b, "tools/call", args) })
	})
}
