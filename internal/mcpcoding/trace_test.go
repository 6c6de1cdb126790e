package mcpcoding_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/mcpcoding"
	"github.com/sudocode/sudocode/internal/testkit"
	"github.com/sudocode/sudocode/internal/workspace"
)

// With tracing on, every tool call leaves one JSON line with its outcome
// and its arguments, secrets redacted.
func TestTraceLines(t *testing.T) {
	root, err := workspace.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	trace := &testkit.LockedBuffer{}
	s := mcpcoding.New(root, mcpcoding.Options{Version: "test", Trace: true, TraceOut: trace})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- s.ServeStdio(context.Background(), inR, outW); outW.Close() }()
	replies := bufio.NewReader(outR)
	for _, msg := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"request_permissions","arguments":{"tool_name":"exec_command","permission":"network","reason":"token ghp_abcdefghijklmnopqrstuv","arguments":{"password":"hunter2","url":"x"}}}}`,
	} {
		io.WriteString(inW, msg+"\n")
		if _, err := replies.ReadBytes('\n'); err != nil { // one at a time: the call must follow initialize
			t.Fatal(err)
		}
	}
	inW.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(trace.String()), "\n")
	if len(lines) != 1 {
		t.Fatalf("trace lines: %q", trace.String())
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &got); err != nil {
		t.Fatal(err)
	}
	if got["event"] != "tool_call" || got["tool"] != "request_permissions" || got["ok"] != false ||
		got["error_code"] != "ELICITATION_UNSUPPORTED" || got["status"] != "unsupported" {
		t.Fatalf("trace = %v", got)
	}
	for _, k := range []string{"timestamp", "duration_ms", "session_id", "truncated", "args"} {
		if _, ok := got[k]; !ok {
			t.Errorf("trace lacks %s", k)
		}
	}
	if strings.Contains(lines[0], "hunter2") || strings.Contains(lines[0], "ghp_") {
		t.Fatalf("a secret reached the trace: %s", lines[0])
	}
}
