package mcpcoding

import (
	"time"

	"github.com/sudocode/sudocode/internal/secret"
	"github.com/sudocode/sudocode/internal/workspace"
)

// trace writes one JSON line about a tool call (Options.Trace), its
// arguments redacted; res is the call's structured result.
func (s *Server) trace(name string, args, res map[string]any, took time.Duration) {
	ok, _ := res["ok"].(bool)
	line := map[string]any{
		"event": "tool_call", "timestamp": time.Now().UTC().Format(time.RFC3339Nano), "tool": name, "ok": ok,
		"status": res["status"], "error_code": nil, "duration_ms": took.Milliseconds(), "session_id": res["session_id"],
		"truncated": res["truncated"] == true, "args": secret.Redact(args),
	}
	if we, isErr := res["error"].(*workspace.Error); isErr {
		line["error_code"] = we.Code
	}
	b, _ := marshalCompact(line)
	s.traceMu.Lock()
	s.opts.TraceOut.Write(append(b, '\n'))
	s.traceMu.Unlock()
}
