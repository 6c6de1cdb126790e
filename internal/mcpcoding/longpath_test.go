package mcpcoding_test

import (
	"bufio"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/racesize"
)

// longPath is a 10 MiB path: five million segments (half a million
// under the race detector, which made the 10 MiB calls' JSON decoding
// take 12 s; a walk one segment at a time, the slowness this guards
// against, takes seconds on either).
var longPath = strings.Repeat("a/", racesize.Of(5<<20, 1<<19))

// longPathCalls are the calls of every tool that takes a path, given
// longPath.
var longPathCalls = []struct {
	tool string
	args map[string]any
}{
	{"read_file", map[string]any{"path": longPath}},
	{"list_dir", map[string]any{"path": longPath}},
	{"search_text", map[string]any{"query": "x", "path": longPath}},
	{"exec_command", map[string]any{"cmd": "true", "workdir": longPath}},
	{"git_diff", map[string]any{"paths": []string{longPath}}},
	{"apply_patch", map[string]any{"patch": "*** Begin Patch\n*** Add File: " + longPath + "x\n+x\n*** End Patch\n"}},
}

// TestLongPathRefusedAtOnce: a 10 MiB path argument, sent to the real
// binary over stdio, is refused as INVALID_ARGUMENT by every tool that
// takes a path (it once took seconds to minutes: apply_patch walked up its
// millions of segments one by one), and the answer does not echo it. How
// long the refusal takes is BenchmarkLongPathRefused's to measure.
func TestLongPathRefusedAtOnce(t *testing.T) {
	call := rawStdio(t)
	for _, c := range longPathCalls {
		l := call(c.tool, c.args)
		if !strings.Contains(l, `INVALID_ARGUMENT`) || !strings.Contains(l, "longer than") {
			t.Errorf("%s: %.300s, want INVALID_ARGUMENT for a path longer than PATH_MAX", c.tool, l)
		}
		if len(l) > 4096 {
			t.Errorf("%s: the %d-byte answer echoes the path", c.tool, len(l))
		}
	}
}

// BenchmarkLongPathRefused times the refusal of a 10 MiB path, per tool,
// over the binary's stdio (each well under a second here).
func BenchmarkLongPathRefused(b *testing.B) {
	call := rawStdio(b)
	for _, c := range longPathCalls {
		b.Run(c.tool, func(b *testing.B) {
			for b.Loop() {
				call(c.tool, c.args)
			}
		})
	}
}

// rawStdio starts the binary over a fresh workspace, initializes it by
// hand (no SDK: the lines are big) and returns a function that calls a
// tool and returns the raw answer line; no answer within a minute fails.
func rawStdio(tb testing.TB) func(tool string, args map[string]any) string {
	tb.Helper()
	cmd := exec.Command(binPath, "--workspace", tb.TempDir(), "--stdio")
	cmd.Env = childEnv()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { stdin.Close(); cmd.Process.Kill(); cmd.Wait() })
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	send := func(msg map[string]any) {
		b, _ := json.Marshal(msg)
		if _, err := stdin.Write(append(b, '\n')); err != nil {
			tb.Fatal(err)
		}
	}
	reply := func() string {
		select {
		case l, ok := <-lines:
			if !ok {
				tb.Fatal("the server closed stdout")
			}
			return l
		case <-time.After(time.Minute):
			tb.Fatal("no answer within a minute")
		}
		return ""
	}
	send(map[string]any{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "0"}}})
	reply()
	send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	id := 0
	return func(tool string, args map[string]any) string {
		id++
		send(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": map[string]any{"name": tool, "arguments": args}})
		return reply()
	}
}
