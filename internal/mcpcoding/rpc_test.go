package mcpcoding_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/mcpcoding"
)

// TestNotInitialized: before initialize only initialize and ping are
// served; notifications stay silent.
func TestNotInitialized(t *testing.T) {
	t.Parallel()
	transports(t, mcpcoding.Options{}, func(t *testing.T, c client) {
		for _, method := range []string{"tools/list", "tools/call", "logging/setLevel", "no/such/method", "resources/list", "prompts/list"} {
			m := call(t, c, method, map[string]any{})
			m.wantError(t, -32002, "1", "Server not initialized")
		}
		if out := c.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); out != nil {
			t.Fatalf("notification answered: %s", out)
		}
		if out := c.send(t, `{"jsonrpc":"2.0","method":"tools/list"}`); out != nil {
			t.Fatalf("notification answered: %s", out)
		}
		if m := call(t, c, "ping", nil); string(m.Result) != "{}" {
			t.Fatalf("ping = %s", m.Result)
		}
		// notifications/initialized does not initialize.
		call(t, c, "tools/list", nil).wantError(t, -32002, "1", "")
		// A rejected initialize does not either.
		call(t, c, "initialize", map[string]any{"protocolVersion": "2024-11-05"}).wantError(t, -32602, "1", "")
		call(t, c, "tools/list", nil).wantError(t, -32002, "1", "")
		initialize(t, c)
		call(t, c, "tools/list", nil).resultMap(t)
	})
}

// TestVersionNegotiation is the table of docs/coding-tools.md#protocol-versions.
func TestVersionNegotiation(t *testing.T) {
	t.Parallel()
	accepted := []any{nil, "2025-06-18", "2025-11-25", "2026-07-28", "2099-01-01"}
	rejected := []any{"2025-03-26", "2024-11-05", "2025-06-17", "2025-6-18", "latest", "", "2025-06-18T00:00:00Z",
		" 2025-06-18", 20250618.0, true, map[string]any{}, []any{"2025-06-18"}}
	transports(t, mcpcoding.Options{}, func(t *testing.T, c client) {
		for _, v := range accepted {
			params := map[string]any{"capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}}
			if v != nil {
				params["protocolVersion"] = v
			}
			r := call(t, c, "initialize", params).resultMap(t)
			if r["protocolVersion"] != "2025-06-18" {
				t.Fatalf("protocolVersion %v: answered %v", v, r["protocolVersion"])
			}
		}
		for _, v := range rejected {
			m := call(t, c, "initialize", map[string]any{"protocolVersion": v})
			m.wantError(t, -32602, "1", "Unsupported MCP protocol version")
			wantData(t, m, "supported", []any{"2025-06-18"})
			if !reflect.DeepEqual(m.Error.Data["received"], v) {
				t.Fatalf("received = %#v, want %#v", m.Error.Data["received"], v)
			}
		}
		// Without params at all, and with null params.
		call(t, c, "initialize", nil).resultMap(t)
		if out := c.send(t, `{"jsonrpc":"2.0","id":2,"method":"initialize","params":null}`); decode(t, out).Error != nil {
			t.Fatalf("initialize with null params: %s", out)
		}
	})
}

// TestInitializeResult is the initialize result of
// docs/coding-tools.md#initialize, exactly, and the same on every call.
func TestInitializeResult(t *testing.T) {
	t.Parallel()
	want := map[string]any{
		"protocolVersion": "2025-06-18",
		"capabilities":    map[string]any{"tools": map[string]any{"listChanged": false}, "logging": map[string]any{}},
		"serverInfo":      map[string]any{"name": "coding-tools-mcp", "title": "Coding Tools MCP", "version": testVersion},
		"instructions":    "Use these tools only for local coding operations inside the configured workspace.",
	}
	transports(t, mcpcoding.Options{}, func(t *testing.T, c client) {
		first := call(t, c, "initialize", map[string]any{"protocolVersion": "2025-06-18"})
		if got := first.resultMap(t); !reflect.DeepEqual(got, want) {
			t.Fatalf("initialize result\n got %v\nwant %v", got, want)
		}
		call(t, c, "tools/list", nil).resultMap(t)
		again := call(t, c, "initialize", map[string]any{"protocolVersion": "2025-11-25"})
		if !bytes.Equal(again.Result, first.Result) {
			t.Fatalf("re-initialize answered differently:\n%s\n%s", again.Result, first.Result)
		}
		call(t, c, "tools/list", nil).resultMap(t)
	})
}

// TestEnvelope: the per-message checks of
// docs/coding-tools.md#messages-and-methods.
func TestEnvelope(t *testing.T) {
	t.Parallel()
	transports(t, mcpcoding.Options{}, func(t *testing.T, c client) {
		initialize(t, c)
		for _, tc := range []struct {
			raw  string
			code int
			id   string
		}{
			{`{"jsonrpc":"1.0","id":1,"method":"ping"}`, -32600, "1"},
			{`{"jsonrpc":2.0,"id":1,"method":"ping"}`, -32600, "1"},
			{`{"id":1,"method":"ping"}`, -32600, "1"},
			{`{"jsonrpc":"2.0","id":1}`, -32600, "1"},
			{`{"jsonrpc":"2.0","id":1,"method":""}`, -32600, "1"},
			{`{"jsonrpc":"2.0","id":1,"method":5}`, -32600, "1"},
			{`{"jsonrpc":"2.0","id":1,"method":null}`, -32600, "1"},
			{`{"jsonrpc":"2.0","id":"s","method":["ping"]}`, -32600, `"s"`},
			{`{"jsonrpc":"2.0","id":true,"method":"ping"}`, -32600, "null"},
			{`{"jsonrpc":"2.0","id":false,"method":"ping"}`, -32600, "null"},
			{`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, -32600, "null"},
			{`{"jsonrpc":"2.0","id":{},"method":"ping"}`, -32600, "null"},
			{`{"jsonrpc":"2.0","id":[1],"method":"ping"}`, -32600, "null"},
			{`{"jsonrpc":"2.0","id":true,"method":"ping","params":[]}`, -32600, "null"},
			{`{"jsonrpc":"2.0","id":1,"method":"ping","params":[]}`, -32602, "1"},
			{`{"jsonrpc":"2.0","id":1,"method":"ping","params":"x"}`, -32602, "1"},
			{`{"jsonrpc":"2.0","id":1,"method":"ping","params":5}`, -32602, "1"},
			{`{"jsonrpc":"2.0","id":1,"method":"ping","params":true}`, -32602, "1"},
			{`{"jsonrpc":"2.0","id":"k","method":"tools/list","params":[]}`, -32602, `"k"`},
			{`{"jsonrpc":"2.0","id":1,"method":"nope"}`, -32601, "1"},
			{`{"jsonrpc":"2.0","id":1,"method":"resources/list"}`, -32601, "1"},
			{`{"jsonrpc":"2.0","id":1,"method":"prompts/list"}`, -32601, "1"},
			{`{"jsonrpc":"2.0","id":1,"method":"completion/complete"}`, -32601, "1"},
			{`{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage"}`, -32601, "1"},
		} {
			out := c.send(t, tc.raw)
			if out == nil {
				t.Fatalf("%s: no answer", tc.raw)
			}
			decode(t, out).wantError(t, tc.code, tc.id, "")
		}
		// Valid ids are echoed as sent.
		for _, id := range []string{`0`, `-5`, `9007199254740991`, `"abc"`, `""`, `"ü \" x"`} {
			out := c.send(t, `{"jsonrpc":"2.0","id":`+id+`,"method":"ping","params":null}`)
			m := decode(t, out)
			if string(m.ID) != id || string(m.Result) != "{}" {
				t.Fatalf("id %s: answer %s", id, out)
			}
		}
		// Unknown method's message.
		call(t, c, "x/y", nil).wantError(t, -32601, "1", "Method not found")
		// Unknown members are ignored.
		if m := decode(t, c.send(t, `{"jsonrpc":"2.0","id":1,"method":"ping","extra":1}`)); m.Error != nil {
			t.Fatalf("extra member: %s", m.Error.Message)
		}
	})
}

// TestNotificationsNeverAnswered, even when they are wrong.
func TestNotificationsNeverAnswered(t *testing.T) {
	t.Parallel()
	transports(t, mcpcoding.Options{}, func(t *testing.T, c client) {
		notes := []string{
			`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
			`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"x"}}`,
			`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"session_id":"nope"}}`,
			`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"session_id":5}}`,
			`{"jsonrpc":"2.0","method":"notifications/progress","params":{}}`,
			`{"jsonrpc":"2.0","method":"tools/list"}`,
			`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"nope"}}`,
			`{"jsonrpc":"2.0","method":"initialize","params":{"protocolVersion":"1999-01-01"}}`,
			`{"jsonrpc":"2.0","method":"logging/setLevel","params":{"level":"loud"}}`,
			`{"jsonrpc":"2.0","id":null,"method":"ping"}`,
			`{"jsonrpc":"2.0","id":null,"method":"nope"}`,
			`{"jsonrpc":"1.0","method":"ping"}`,
			`{"method":"ping"}`,
			`{"jsonrpc":"2.0","method":""}`,
			`{"jsonrpc":"2.0","method":5}`,
			`{"jsonrpc":"2.0","method":"ping","params":[]}`,
		}
		for _, n := range notes {
			if out := c.send(t, n); out != nil {
				t.Fatalf("%s answered: %s", n, out)
			}
		}
		initialize(t, c)
		for _, n := range notes {
			if out := c.send(t, n); out != nil {
				t.Fatalf("%s answered after initialize: %s", n, out)
			}
		}
		// The notification that looked like initialize did not break
		// anything, and the one before initialize did not initialize.
		call(t, c, "tools/list", nil).resultMap(t)
	})
}

func TestLoggingSetLevel(t *testing.T) {
	t.Parallel()
	levels := []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}
	transports(t, mcpcoding.Options{}, func(t *testing.T, c client) {
		initialize(t, c)
		for _, l := range levels {
			if m := call(t, c, "logging/setLevel", map[string]any{"level": l}); string(m.Result) != "{}" {
				t.Fatalf("level %s: %s", l, m.Result)
			}
		}
		for _, bad := range []any{"verbose", "WARNING", "warn", "", 3.0, true, nil} {
			params := map[string]any{"level": bad}
			m := call(t, c, "logging/setLevel", params)
			m.wantError(t, -32602, "1", "logging level")
			wantData(t, m, "supported", levels)
			if !reflect.DeepEqual(m.Error.Data["received"], bad) {
				t.Fatalf("received = %#v, want %#v", m.Error.Data["received"], bad)
			}
		}
		m := call(t, c, "logging/setLevel", nil)
		m.wantError(t, -32602, "1", "logging level")
		if _, ok := m.Error.Data["received"]; !ok {
			t.Fatalf("data without received: %v", m.Error.Data)
		}
	})
}

func TestToolsListCursor(t *testing.T) {
	t.Parallel()
	transports(t, mcpcoding.Options{}, func(t *testing.T, c client) {
		initialize(t, c)
		var first json.RawMessage
		for _, params := range []any{nil, map[string]any{}, map[string]any{"cursor": nil}} {
			m := call(t, c, "tools/list", params)
			r := m.resultMap(t)
			if _, has := r["nextCursor"]; has {
				t.Fatalf("tools/list has a nextCursor")
			}
			if first == nil {
				first = m.Result
			} else if !bytes.Equal(first, m.Result) {
				t.Fatalf("tools/list changed between calls")
			}
		}
		for _, cur := range []any{"", "abc", 1.0, map[string]any{}} {
			call(t, c, "tools/list", map[string]any{"cursor": cur}).wantError(t, -32602, "1", "cursor")
		}
	})
}

// TestToolsCallShape: name and arguments of tools/call
// (docs/coding-tools.md#results steps 1–2).
func TestToolsCallShape(t *testing.T) {
	t.Parallel()
	transports(t, mcpcoding.Options{}, func(t *testing.T, c client) {
		initialize(t, c)
		for _, raw := range []string{
			`{}`,
			`{"name":5}`,
			`{"name":["request_permissions"]}`,
			`{"name":{}}`,
			`{"name":null}`,
			`{"name":true}`,
			`{"arguments":{}}`,
			`{"name":"request_permissions","arguments":[]}`,
			`{"name":"request_permissions","arguments":"x"}`,
			`{"name":"request_permissions","arguments":5}`,
			`{"name":"request_permissions","arguments":true}`,
			`{"name":"nope","arguments":[]}`,
		} {
			out := c.send(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":`+raw+`}`)
			m := decode(t, out)
			m.wantError(t, -32602, "1", "")
			if m.Error.Data["reason"] == "unknown_tool" || m.Error.Data["reason"] == "invalid_arguments" {
				t.Fatalf("%s: shape error reported as %v", raw, m.Error.Data)
			}
		}
		// Unknown tools, including aliases and forbidden families.
		for _, name := range []string{"nope", "", "view_image ", "READ_FILE", "read-file", "codex", "codex-reply",
			"web_search", "fetch", "login", "remember", "generate_image", "spawn_agent", "shell", "bash"} {
			m := toolCall(t, c, name, map[string]any{})
			m.wantError(t, -32602, "1", "")
			if m.Error.Data["reason"] != "unknown_tool" {
				t.Fatalf("%q: data %v, want reason unknown_tool", name, m.Error.Data)
			}
		}
		// arguments null or absent count as {}: request_permissions then
		// misses its required arguments.
		for _, raw := range []string{`{"name":"request_permissions"}`, `{"name":"request_permissions","arguments":null}`} {
			m := decode(t, c.send(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":`+raw+`}`))
			m.wantError(t, -32602, "1", "tool_name")
			if m.Error.Data["reason"] != "invalid_arguments" {
				t.Fatalf("%s: data %v", raw, m.Error.Data)
			}
		}
	})
	t.Run("view_image disabled", func(t *testing.T) {
		transports(t, mcpcoding.Options{ViewImage: false}, func(t *testing.T, c client) {
			initialize(t, c)
			m := toolCall(t, c, "view_image", map[string]any{"path": "x.png"})
			m.wantError(t, -32602, "1", "")
			if m.Error.Data["reason"] != "unknown_tool" {
				t.Fatalf("data %v", m.Error.Data)
			}
		})
	})
}

// validPerm is a request_permissions call that passes the schema.
func validPerm(extra map[string]any) map[string]any {
	a := map[string]any{"tool_name": "exec_command", "permission": "network", "reason": "fetch deps", "arguments": map[string]any{"cmd": "curl x"}}
	for k, v := range extra {
		if v == del {
			delete(a, k)
		} else {
			a[k] = v
		}
	}
	return a
}

var del = &struct{}{}

// TestSchemaViolations: every kind of inputSchema failure is -32602 with
// data {reason: invalid_arguments, code: INVALID_ARGUMENT} and a message
// naming the argument; none runs the tool.
func TestSchemaViolations(t *testing.T) {
	t.Parallel()
	cases := []struct {
		kind, tool string
		args       map[string]any
		arg        string
	}{
		{"integer given a fraction", "request_permissions", validPerm(map[string]any{"ttl_seconds": 1.5}), "ttl_seconds"},
		{"integer given true", "request_permissions", validPerm(map[string]any{"ttl_seconds": true}), "ttl_seconds"},
		{"integer given a string", "request_permissions", validPerm(map[string]any{"ttl_seconds": "5"}), "ttl_seconds"},
		{"integer given an object", "request_permissions", validPerm(map[string]any{"ttl_seconds": map[string]any{}}), "ttl_seconds"},
		{"below minimum", "request_permissions", validPerm(map[string]any{"ttl_seconds": 0}), "ttl_seconds"},
		{"negative", "request_permissions", validPerm(map[string]any{"ttl_seconds": -1}), "ttl_seconds"},
		{"above maximum", "request_permissions", validPerm(map[string]any{"ttl_seconds": 3601}), "ttl_seconds"},
		{"huge", "request_permissions", validPerm(map[string]any{"ttl_seconds": 1e300}), "ttl_seconds"},
		{"enum", "request_permissions", validPerm(map[string]any{"scope": "forever"}), "scope"},
		{"enum case", "request_permissions", validPerm(map[string]any{"scope": "Once"}), "scope"},
		{"enum tool_name", "request_permissions", validPerm(map[string]any{"tool_name": "read_file"}), "tool_name"},
		{"enum permission", "request_permissions", validPerm(map[string]any{"permission": "root"}), "permission"},
		{"minLength", "request_permissions", validPerm(map[string]any{"reason": ""}), "reason"},
		{"string given a number", "request_permissions", validPerm(map[string]any{"reason": 5}), "reason"},
		{"string given an array", "request_permissions", validPerm(map[string]any{"permission": []any{"network"}}), "permission"},
		{"object given an array", "request_permissions", validPerm(map[string]any{"arguments": []any{}}), "arguments"},
		{"object given a string", "request_permissions", validPerm(map[string]any{"arguments": "cmd"}), "arguments"},
		{"unknown property", "request_permissions", validPerm(map[string]any{"extra": 1}), "extra"},
		{"unknown property null", "request_permissions", validPerm(map[string]any{"grant": nil}), "grant"},
		{"missing required", "request_permissions", validPerm(map[string]any{"reason": del}), "reason"},
		{"required null", "request_permissions", validPerm(map[string]any{"arguments": nil}), "arguments"},
		{"missing every required", "request_permissions", map[string]any{}, "tool_name"},
		{"array item type", "git_diff", map[string]any{"paths": []any{"a", 1}}, "paths"},
		{"array given a string", "git_diff", map[string]any{"paths": "a"}, "paths"},
		{"array item null", "list_files", map[string]any{"patterns": []any{nil}}, "patterns"},
		{"env value type", "exec_command", map[string]any{"cmd": "true", "env": map[string]any{"A": 1}}, "env"},
		{"env value null", "exec_command", map[string]any{"cmd": "true", "env": map[string]any{"A": nil}}, "env"},
		{"env not an object", "exec_command", map[string]any{"cmd": "true", "env": []any{"A=1"}}, "env"},
		{"exec cmd empty", "exec_command", map[string]any{"cmd": ""}, "cmd"},
		{"exec timeout above max", "exec_command", map[string]any{"cmd": "true", "timeout_ms": 600001}, "timeout_ms"},
		{"boolean given a string", "exec_command", map[string]any{"cmd": "true", "tty": "yes"}, "tty"},
		{"boolean given 1", "exec_command", map[string]any{"cmd": "true", "tty": 1}, "tty"},
		{"read_file start_line 0", "read_file", map[string]any{"path": "a", "start_line": 0}, "start_line"},
		{"read_file no path", "read_file", map[string]any{"max_bytes": 10}, "path"},
		{"read_file encoding", "read_file", map[string]any{"path": "a", "encoding": "latin-1"}, "encoding"},
		{"write_stdin no session", "write_stdin", map[string]any{"chars": "x"}, "session_id"},
		{"kill_session signal", "kill_session", map[string]any{"session_id": "s", "signal": "HUP"}, "signal"},
		{"view_image max_bytes", "view_image", map[string]any{"path": "a.png", "max_bytes": 1023}, "max_bytes"},
	}
	transports(t, mcpcoding.Options{ViewImage: true}, func(t *testing.T, c client) {
		initialize(t, c)
		for _, tc := range cases {
			m := toolCall(t, c, tc.tool, tc.args)
			if m.Error == nil {
				t.Fatalf("%s: %s(%v) passed the schema: %s", tc.kind, tc.tool, tc.args, m.Result)
			}
			m.wantError(t, -32602, "1", tc.arg)
			if m.Error.Data["reason"] != "invalid_arguments" || m.Error.Data["code"] != "INVALID_ARGUMENT" {
				t.Fatalf("%s: data %v", tc.kind, m.Error.Data)
			}
		}
		// The bounds themselves pass.
		for _, ttl := range []any{1, 3600, 300.0} {
			m := toolCall(t, c, "request_permissions", validPerm(map[string]any{"ttl_seconds": ttl, "scope": "session"}))
			if m.Error != nil {
				t.Fatalf("ttl_seconds %v: %+v", ttl, *m.Error)
			}
		}
	})
}

// toolResult is a decoded tools/call result.
type toolResult struct {
	Content           []map[string]any `json:"content"`
	StructuredContent map[string]any   `json:"structuredContent"`
	IsError           *bool            `json:"isError"`
}

// decodeResult checks the invariants of every tool result: the first
// text item mirrors structuredContent, isError == !ok, warnings present.
func decodeResult(t *testing.T, m message) toolResult {
	t.Helper()
	if m.Error != nil {
		t.Fatalf("tools/call failed: %+v", *m.Error)
	}
	var r toolResult
	if err := json.Unmarshal(m.Result, &r); err != nil {
		t.Fatalf("result %s: %v", m.Result, err)
	}
	checkResult(t, r)
	return r
}

func checkResult(t *testing.T, r toolResult) {
	t.Helper()
	if r.StructuredContent == nil {
		t.Fatalf("no structuredContent")
	}
	ok, isBool := r.StructuredContent["ok"].(bool)
	if !isBool {
		t.Fatalf("structuredContent.ok = %#v", r.StructuredContent["ok"])
	}
	if r.IsError == nil || *r.IsError != !ok {
		t.Fatalf("isError = %v with ok = %v", r.IsError, ok)
	}
	if w, isList := r.StructuredContent["warnings"].([]any); !isList {
		t.Fatalf("warnings = %#v, want an array", r.StructuredContent["warnings"])
	} else {
		for _, s := range w {
			if _, isStr := s.(string); !isStr {
				t.Fatalf("warning %#v is not a string", s)
			}
		}
	}
	var text string
	for _, it := range r.Content {
		if it["type"] == "text" {
			text, _ = it["text"].(string)
			break
		}
	}
	var mirror map[string]any
	if err := json.Unmarshal([]byte(text), &mirror); err != nil {
		t.Fatalf("text mirror %q is not a JSON object: %v", text, err)
	}
	if !reflect.DeepEqual(mirror, r.StructuredContent) {
		t.Fatalf("text mirror differs from structuredContent:\n%s\n%v", text, r.StructuredContent)
	}
	if !ok {
		e, _ := r.StructuredContent["error"].(map[string]any)
		for _, k := range []string{"code", "message", "category", "retryable", "details"} {
			if _, has := e[k]; !has {
				t.Fatalf("error %v has no %s", e, k)
			}
		}
		for k := range e {
			switch k {
			case "code", "message", "category", "retryable", "details", "permission_request":
			default:
				t.Fatalf("error has an extra key %q", k)
			}
		}
		if _, isObj := e["details"].(map[string]any); !isObj {
			t.Fatalf("error.details = %#v", e["details"])
		}
	} else if _, has := r.StructuredContent["error"]; has {
		t.Fatalf("ok result with an error: %v", r.StructuredContent)
	}
}

// TestRequestPermissionsProtocol is request_permissions
// (docs/coding-tools.md#permissions) over both transports.
func TestRequestPermissionsProtocol(t *testing.T) {
	t.Parallel()
	args := map[string]any{"tool_name": "exec_command", "permission": "network", "reason": "fetch deps",
		"arguments": map[string]any{"cmd": "curl https://example.com", "n": 2.0}}
	requested := map[string]any{"tool_name": "exec_command", "permission": "network", "reason": "fetch deps",
		"arguments": map[string]any{"cmd": "curl https://example.com", "n": 2.0}, "scope": "once", "ttl_seconds": 300.0}
	t.Run("default", func(t *testing.T) {
		transports(t, mcpcoding.Options{}, func(t *testing.T, c client) {
			initialize(t, c)
			r := decodeResult(t, toolCall(t, c, "request_permissions", args))
			sc := r.StructuredContent
			if !*r.IsError || sc["ok"] != false || sc["status"] != "unsupported" {
				t.Fatalf("result %v", sc)
			}
			if v, has := sc["grant_id"]; !has || v != nil {
				t.Fatalf("grant_id = %#v (present %v), want null", v, has)
			}
			if v, has := sc["expires_at"]; !has || v != nil {
				t.Fatalf("expires_at = %#v (present %v), want null", v, has)
			}
			if w := sc["warnings"].([]any); len(w) != 0 {
				t.Fatalf("warnings %v, want []", w)
			}
			e := sc["error"].(map[string]any)
			if e["code"] != "ELICITATION_UNSUPPORTED" || e["category"] != "permission" || e["retryable"] != false {
				t.Fatalf("error %v", e)
			}
			if msg, _ := e["message"].(string); !strings.Contains(msg, "elicitation") || !strings.Contains(msg, "not") {
				t.Fatalf("message %q does not say elicitation is unavailable", msg)
			}
			d := e["details"].(map[string]any)
			if !reflect.DeepEqual(d["requested"], requested) {
				t.Fatalf("details.requested = %v, want %v", d["requested"], requested)
			}
			// Again: no state, same answer.
			r2 := decodeResult(t, toolCall(t, c, "request_permissions", args))
			if !reflect.DeepEqual(r.StructuredContent, r2.StructuredContent) {
				t.Fatalf("second call differs")
			}
		})
	})
	t.Run("dangerous", func(t *testing.T) {
		transports(t, mcpcoding.Options{Dangerous: true}, func(t *testing.T, c client) {
			initialize(t, c)
			r := decodeResult(t, toolCall(t, c, "request_permissions", args))
			sc := r.StructuredContent
			if *r.IsError || sc["ok"] != true || sc["status"] != "granted" || sc["grant_id"] != "dangerously-skip-all-permissions" {
				t.Fatalf("result %v", sc)
			}
			if v, has := sc["expires_at"]; !has || v != nil {
				t.Fatalf("expires_at = %#v, want null", v)
			}
			cons := sc["constraints"].(map[string]any)
			if cons["mode"] != "dangerously_skip_all_permissions" || !reflect.DeepEqual(cons["requested"], requested) {
				t.Fatalf("constraints %v", cons)
			}
			if ws, _ := cons["workspace"].(string); !strings.HasPrefix(ws, "/") {
				t.Fatalf("constraints.workspace = %v", cons["workspace"])
			}
			if w := sc["warnings"].([]any); len(w) == 0 || !strings.Contains(fmt.Sprint(w), "dangerous") {
				t.Fatalf("warnings %v", w)
			}
		})
	})
}

// TestStdioFraming: one compact line per response, silence for
// notifications, blank lines ignored, parse errors with id null, and a
// clean return at EOF, last line without newline included.
func TestStdioFraming(t *testing.T) {
	t.Parallel()
	s := newServer(t, mcpcoding.Options{})
	in := strings.Join([]string{
		"",
		"   ",
		"\t",
		`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18"}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		"\r",
		`{"jsonrpc":`,
		`[]`,
		`5`,
		`"x"`,
		"{\"jsonrpc\":\"2.0\",\"id\":\"utf8\",\"method\":\"ping\",\"params\":{\"s\":\"\xfe\"}}",
		`[{"jsonrpc":"2.0","id":"b1","method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":"b2","method":"ping"}]`,
		`[{"jsonrpc":"2.0","method":"notifications/initialized"}]`,
		batchOf(51, pingReq),
		`  {"jsonrpc":"2.0","id":"spaced","method":"ping"}   `,
		`{"jsonrpc":"2.0","id":"last","method":"ping"}`,
	}, "\n") // no final newline
	var out bytes.Buffer
	done := make(chan error, 1)
	go func() { done <- s.ServeStdio(context.Background(), strings.NewReader(in), &out) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("ServeStdio at EOF: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ServeStdio did not return at EOF")
	}
	if !bytes.HasSuffix(out.Bytes(), []byte("\n")) {
		t.Fatalf("output does not end with a newline: %q", out.String())
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	byID := map[string]json.RawMessage{}
	var nullErrs []int
	var batches [][]json.RawMessage
	for _, l := range lines {
		wantCompact(t, []byte(l))
		if strings.HasPrefix(l, "[") {
			var b []json.RawMessage
			if err := json.Unmarshal([]byte(l), &b); err != nil {
				t.Fatal(err)
			}
			batches = append(batches, b)
			continue
		}
		m := decode(t, []byte(l))
		if string(m.ID) == "null" {
			nullErrs = append(nullErrs, m.Error.Code)
			continue
		}
		var id string
		json.Unmarshal(m.ID, &id)
		byID[id] = []byte(l)
	}
	if len(lines) != 10 {
		t.Fatalf("%d lines, want 10:\n%s", len(lines), out.String())
	}
	for _, id := range []string{"init", "spaced", "last"} {
		if byID[id] == nil {
			t.Fatalf("no answer for %q:\n%s", id, out.String())
		}
	}
	decode(t, byID["init"]).resultMap(t)
	// Parse error, invalid UTF-8 (a parse error too), empty batch,
	// number, string, oversized batch.
	if fmt.Sprint(sortInts(nullErrs)) != fmt.Sprint([]int{-32700, -32700, -32600, -32600, -32600, -32600}) {
		t.Fatalf("id-null errors %v\n%s", nullErrs, out.String())
	}
	if len(batches) != 1 || len(batches[0]) != 2 {
		t.Fatalf("batch answers %v", batches)
	}
	for i, id := range []string{`"b1"`, `"b2"`} {
		if m := decode(t, batches[0][i]); string(m.ID) != id {
			t.Fatalf("batch answer %d: %s", i, batches[0][i])
		}
	}
}

func sortInts(v []int) []int {
	for i := range v {
		for j := i + 1; j < len(v); j++ {
			if v[j] < v[i] {
				v[i], v[j] = v[j], v[i]
			}
		}
	}
	return v
}

// TestStdioConnections: the initialized flag belongs to the stdio
// connection, and concurrent requests still get whole lines.
func TestStdioConnections(t *testing.T) {
	t.Parallel()
	s := newServer(t, mcpcoding.Options{})
	a, b := newStdio(t, s), newStdio(t, s)
	initialize(t, a)
	call(t, a, "tools/list", nil).resultMap(t)
	call(t, b, "tools/list", nil).wantError(t, -32002, "1", "")

	// Many requests at once: every line is one whole response.
	var req strings.Builder
	for i := range 200 {
		fmt.Fprintf(&req, `{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`+"\n", i)
	}
	a.write(t, req.String())
	seen := map[string]bool{}
	for range 200 {
		m := decode(t, []byte(a.line(t)))
		m.resultMap(t)
		seen[string(m.ID)] = true
	}
	if len(seen) != 200 {
		t.Fatalf("%d distinct answers, want 200", len(seen))
	}
}

// TestStdioReadError: a reader that fails ends the loop with its error;
// EOF is not an error.
func TestStdioReadError(t *testing.T) {
	t.Parallel()
	s := newServer(t, mcpcoding.Options{})
	boom := fmt.Errorf("boom")
	err := s.ServeStdio(context.Background(), io.MultiReader(strings.NewReader(pingReq+"\n"), errReader{boom}), io.Discard)
	if err != boom {
		t.Fatalf("ServeStdio = %v, want the read error", err)
	}
	var out bytes.Buffer
	if err := s.ServeStdio(context.Background(), strings.NewReader(""), &out); err != nil || out.Len() != 0 {
		t.Fatalf("empty input: %v %q", err, out.String())
	}
	// Long lines are fine.
	out.Reset()
	if err := s.ServeStdio(context.Background(), strings.NewReader(padded(3<<20)+"\n"), &out); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(&out)
	if !sc.Scan() || decode(t, sc.Bytes()).Error != nil {
		t.Fatalf("a 3 MiB line: %q", out.String())
	}
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// TestStdioContextCancel: a done context ends ServeStdio even while a read
// is blocked (the binary's SIGTERM).
func TestStdioContextCancel(t *testing.T) {
	t.Parallel()
	s := newServer(t, mcpcoding.Options{})
	inR, inW := io.Pipe()
	defer inW.Close()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.ServeStdio(ctx, inR, outW) }()
	go io.WriteString(inW, pingReq+"\n")
	line, err := bufio.NewReader(outR).ReadString('\n')
	if err != nil || decode(t, []byte(line)).Error != nil {
		t.Fatalf("ping: %q %v", line, err)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("ServeStdio after cancel: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("ServeStdio ignored its context")
	}
}
