package mcpcoding

import (
	"encoding/json"
	"time"

	"github.com/sudocode/sudocode/internal/secret"
)

// trace writes one JSON line about a tool call (Options.Trace), its
// arguments redacted; res is the call's structured result.
func (s *Server) trace(name string, args map[string]any, res []byte, took time.Duration) {
	var out struct {
		OK        bool    `json:"ok"`
		Status    *string `json:"status"`
		SessionID *string `json:"session_id"`
		Truncated bool    `json:"truncated"`
		Error     *struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	json.Unmarshal(res, &out)
	line := map[string]any{
		"event": "tool_call", "timestamp": time.Now().UTC().Format(time.RFC3339Nano), "tool": name, "ok": out.OK,
		"status": out.Status, "error_code": nil, "duration_ms": took.Milliseconds(), "session_id": out.SessionID,
		"truncated": out.Truncated, "args": secret.Redact(args),
	}
	if out.Error != nil {
		line["error_code"] = out.Error.Code
	}
	b, _ := marshalCompact(line)
	s.traceMu.Lock()
	s.opts.TraceOut.Write(append(b, '\n'))
	s.traceMu.Unlock()
}
