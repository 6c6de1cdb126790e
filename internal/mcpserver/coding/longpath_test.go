package coding_test

import (
	"bufio"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestLongPathRefusedAtOnce: a 10 MiB path argument, sent to the real
// binary over stdio, is refused as INVALID_ARGUMENT at once by every tool
// that takes a path (it once took seconds to minutes: apply_patch walked up
// its millions of segments one by one), and the answer does not echo it.
// The bound is a correctness bound, generous for a loaded machine.
func TestLongPathRefusedAtOnce(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(binPath, "--workspace", dir, "--stdio")
	cmd.Env = childEnv()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); cmd.Process.Kill(); cmd.Wait() })
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
			t.Fatal(err)
		}
	}
	reply := func(within time.Duration) string {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatal("the server closed stdout")
			}
			return l
		case <-time.After(within):
			t.Fatalf("no answer within %v", within)
		}
		return ""
	}
	send(map[string]any{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "0"}}})
	reply(10 * time.Second)
	send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})

	long := strings.Repeat("a/", 5<<20) // 10 MiB, five million segments
	for i, c := range []struct {
		tool string
		args map[string]any
	}{
		{"read_file", map[string]any{"path": long}},
		{"list_dir", map[string]any{"path": long}},
		{"search_text", map[string]any{"query": "x", "path": long}},
		{"exec_command", map[string]any{"cmd": "true", "workdir": long}},
		{"git_diff", map[string]any{"paths": []string{long}}},
		{"apply_patch", map[string]any{"patch": "*** Begin Patch\n*** Add File: " + long + "x\n+x\n*** End Patch\n"}},
	} {
		start := time.Now()
		send(map[string]any{"jsonrpc": "2.0", "id": i + 1, "method": "tools/call", "params": map[string]any{"name": c.tool, "arguments": c.args}})
		l := reply(60 * time.Second)
		if took := time.Since(start); took > 2*time.Second {
			t.Errorf("%s: a 10 MiB path took %v to be answered", c.tool, took)
		}
		if !strings.Contains(l, `INVALID_ARGUMENT`) || !strings.Contains(l, "longer than") {
			t.Errorf("%s: %.300s, want INVALID_ARGUMENT for a path longer than PATH_MAX", c.tool, l)
		}
		if len(l) > 4096 {
			t.Errorf("%s: the %d-byte answer echoes the path", c.tool, len(l))
		}
	}
}
