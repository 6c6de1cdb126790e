package agent

import (
	"slices"
	"strings"
	"testing"
)

// claudeScript prints recorded Claude Code stream-json shapes (as Claude Code prints them: docs/agent-clis.md#claude-code).
const claudeScript = `
case " $* " in
  *" --verbose "*) ;;
  *) echo "Error: When using --print, --output-format=stream-json requires --verbose" >&2; exit 1;;
esac
sid="${resume:-0b9d6c1e-sess-claude}"
cat <<JSON
{"type":"system","subtype":"init","session_id":"$sid","cwd":"$PWD","model":"claude-sonnet-4-5","tools":["Bash","Edit","Read"],"mcp_servers":[{"name":"gh","status":"connected"}],"permissionMode":"acceptEdits","claude_code_version":"2.1.330","apiKeySource":"none","slash_commands":[],"uuid":"u0"}
JSON
if [ -n "$STANDIN_FAIL" ]; then
cat <<JSON
{"type":"assistant","message":{"id":"msg_9","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"API Error: Rate limit reached"}],"usage":{"input_tokens":3,"output_tokens":1}},"parent_tool_use_id":null,"error":"rate_limit","session_id":"$sid","uuid":"u1"}
{"type":"result","subtype":"error_max_turns","is_error":true,"num_turns":2,"duration_ms":900,"duration_api_ms":800,"total_cost_usd":0.0031,"usage":{"input_tokens":10,"output_tokens":2,"cache_creation_input_tokens":0,"cache_read_input_tokens":0},"modelUsage":{},"permission_denials":[],"stop_reason":null,"terminal_reason":"max_turns","errors":["Reached maximum number of turns (1)"],"session_id":"$sid","uuid":"u2"}
JSON
exit 1
fi
cat <<JSON
{"type":"system","subtype":"hook_started","hook_name":"x","session_id":"$sid","uuid":"u1"}
{"type":"assistant","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"thinking","thinking":"Look at main.go first.","signature":"sig"}],"usage":{"input_tokens":3,"output_tokens":5}},"parent_tool_use_id":null,"session_id":"$sid","uuid":"u2"}
{"type":"assistant","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"I'll fix the bug."}],"usage":{"input_tokens":3,"output_tokens":9}},"parent_tool_use_id":null,"session_id":"$sid","uuid":"u3"}
{"type":"assistant","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"toolu_01","name":"Edit","input":{"file_path":"$PWD/main.go","old_string":"a := 1","new_string":"a := 2"}}],"usage":{"input_tokens":3,"output_tokens":20}},"parent_tool_use_id":null,"session_id":"$sid","uuid":"u4"}
{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_01","type":"tool_result","content":"The file main.go has been updated.","is_error":false}]},"parent_tool_use_id":null,"session_id":"$sid","uuid":"u5","tool_use_result":{"filePath":"main.go"}}
{"type":"assistant","message":{"id":"msg_2","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"toolu_02","name":"Bash","input":{"command":"go test ./...","description":"run tests"}}]},"parent_tool_use_id":null,"session_id":"$sid","uuid":"u6"}
{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_02","type":"tool_result","content":[{"type":"text","text":"ok  example 0.01s"}],"is_error":false}]},"parent_tool_use_id":null,"session_id":"$sid","uuid":"u7"}
{"type":"assistant","message":{"id":"msg_3","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"Fixed: a is now 2."}]},"parent_tool_use_id":null,"session_id":"$sid","uuid":"u8"}
{"type":"result","subtype":"success","is_error":false,"result":"Fixed: a is now 2.","num_turns":4,"duration_ms":5400,"duration_api_ms":5000,"total_cost_usd":0.0421,"usage":{"input_tokens":120,"output_tokens":340,"cache_creation_input_tokens":1500,"cache_read_input_tokens":9000},"modelUsage":{"claude-sonnet-4-5":{"inputTokens":120,"outputTokens":340,"cacheReadInputTokens":9000,"cacheCreationInputTokens":1500,"costUSD":0.0421}},"permission_denials":[],"stop_reason":"end_turn","terminal_reason":"completed","session_id":"$sid","uuid":"u9"}
{"type":"system","subtype":"informational","session_id":"$sid","uuid":"u10"}
JSON
`

func TestClaudeRun(t *testing.T) {
	logDir := standIn(t, "claude", claudeScript)
	dir := t.TempDir()
	a, _ := Lookup("CLAUDECODE")
	res := runAgent(t, a, RunSpec{Instructions: testPrompt, Dir: dir, Config: map[string]any{"model": "opus"}}, logDir)

	assertPromptOnStdin(t, res, testPrompt)
	want := []string{"-p", "--output-format", "stream-json", "--verbose", "--permission-mode", "acceptEdits", "--model", "opus"}
	if !slices.Equal(res.inv.Argv[1:], want) {
		t.Errorf("argv = %q, want claude %q", res.inv.Argv, want)
	}
	if !hasEnv(res, "PWD="+dir) {
		t.Errorf("PWD not set to the worktree")
	}
	if res.parser.SessionID() != "0b9d6c1e-sess-claude" {
		t.Errorf("session = %q", res.parser.SessionID())
	}
	ev := res.events
	if ev[0].Kind != KindLog || ev[0].Data["event"] != EventSessionStarted || ev[0].SessionID != "0b9d6c1e-sess-claude" {
		t.Errorf("first event = %+v", ev[0])
	}
	msgs := ofKind(ev, KindMessage)
	if len(msgs) != 3 || msgs[0].Data["reasoning"] != true || msgs[1].Text != "I'll fix the bug." || msgs[2].Text != "Fixed: a is now 2." {
		t.Errorf("messages = %+v", msgs)
	}
	calls := ofKind(ev, KindToolCall)
	// A call's text is what it is about (its file or command), for the log.
	if len(calls) != 2 || calls[0].Tool != "Edit" || calls[1].Tool != "Bash" || calls[0].Data["id"] != "toolu_01" ||
		calls[0].Text != dir+"/main.go" || calls[1].Text != "go test ./..." {
		t.Errorf("tool calls = %+v", calls)
	}
	results := ofKind(ev, KindToolResult)
	if len(results) != 2 || results[0].Tool != "Edit" || results[0].Text != "The file main.go has been updated." ||
		results[1].Tool != "Bash" || results[1].Text != "ok  example 0.01s" || results[1].Data["is_error"] != false {
		t.Errorf("tool results = %+v", results)
	}
	// What changed is read from git; the Edit call only names its target.
	if fc := ofKind(ev, KindFileChange); len(fc) != 0 {
		t.Errorf("file changes from tool calls = %+v", fc)
	}
	if f, _ := calls[0].Data[DataFiles].([]string); !slices.Equal(f, []string{dir + "/main.go"}) {
		t.Errorf("Edit call files = %v", calls[0].Data)
	}
	u := ofKind(ev, KindUsage)
	if len(u) != 1 || u[0].CostUSD == nil || *u[0].CostUSD != 0.0421 ||
		*u[0].Tokens != (Tokens{Input: 120, Output: 340, CacheRead: 9000, CacheWrite: 1500}) {
		t.Errorf("usage = %+v", u)
	}
	c := completion(t, ev, true)
	if c.Text != "Fixed: a is now 2." || c.SessionID != "0b9d6c1e-sess-claude" || c.Data["num_turns"] != int64(4) || *c.CostUSD != 0.0421 || c.Tokens.CacheRead != 9000 {
		t.Errorf("completion = %+v", c)
	}
	if len(ofKind(ev, KindError)) != 0 {
		t.Errorf("unexpected errors: %+v", ofKind(ev, KindError))
	}
	if logs := ofKind(ev, KindLog); len(logs) != 3 { // session, hook_started, informational
		t.Errorf("logs = %+v", logs)
	}
}

func TestClaudeResume(t *testing.T) {
	logDir := standIn(t, "claude", claudeScript)
	res := runAgent(t, Claude{}, RunSpec{Instructions: "Now add a test.", Dir: t.TempDir(), ResumeSession: "sess-prev",
		Config: map[string]any{"permission_mode": "bypassPermissions", "args": []any{"--max-turns", "30"}}}, logDir)
	assertPromptOnStdin(t, res, "Now add a test.")
	if flagValue(res.inv.Argv, "--resume") != "sess-prev" || flagValue(res.inv.Argv, "--permission-mode") != "bypassPermissions" ||
		flagValue(res.inv.Argv, "--max-turns") != "30" || slices.Contains(res.inv.Argv, "--model") {
		t.Errorf("argv = %q", res.inv.Argv)
	}
	if res.parser.SessionID() != "sess-prev" {
		t.Errorf("session = %q", res.parser.SessionID())
	}
	completion(t, res.events, true)
}

func TestClaudeFailure(t *testing.T) {
	logDir := standIn(t, "claude", claudeScript)
	res := runAgent(t, Claude{}, RunSpec{Instructions: testPrompt, Dir: t.TempDir()}, logDir, "STANDIN_FAIL=1")
	if res.exit != 1 {
		t.Fatalf("exit = %d", res.exit)
	}
	errs := ofKind(res.events, KindError)
	if len(errs) != 2 || errs[0].Text != "rate_limit" || !strings.Contains(errs[1].Text, "Reached maximum number of turns") ||
		errs[1].Data["subtype"] != "error_max_turns" {
		t.Errorf("errors = %+v", errs)
	}
	if u := ofKind(res.events, KindUsage); len(u) != 1 || *u[0].CostUSD != 0.0031 {
		t.Errorf("usage = %+v", u)
	}
	completion(t, res.events, false)
}

// A startup failure: no result line and a non-zero exit.
func TestClaudeStartupFailure(t *testing.T) {
	logDir := standIn(t, "claude", "echo 'Error: Invalid API key' >&2; exit 1\n")
	res := runAgent(t, Claude{}, RunSpec{Instructions: "x", Dir: t.TempDir()}, logDir)
	c := completion(t, res.events, false)
	if c.Data["exit_code"] != 1 {
		t.Errorf("completion = %+v", c)
	}
}

// Exit 0 is not success without a result; a successful result with a
// non-zero exit adds an error but no second completion.
func TestClaudeExitCodeMismatch(t *testing.T) {
	p := Claude{}.NewParser()
	p.Line([]byte(`{"type":"result","subtype":"success","is_error":false,"result":"ok","session_id":"s"}`), testNow)
	ev := p.Finish(1, testNow)
	if len(ev) != 1 || ev[0].Kind != KindError || ev[0].Data["exit_code"] != 1 {
		t.Errorf("finish = %+v", ev)
	}
	p = Claude{}.NewParser()
	completion(t, p.Finish(0, testNow), false)
	// subtype success with is_error means an API error ended the turn.
	p = Claude{}.NewParser()
	ev = p.Line([]byte(`{"type":"result","subtype":"success","is_error":true,"result":"API Error: 500","session_id":"s"}`), testNow)
	completion(t, ev, false)
	if e := ofKind(ev, KindError); len(e) != 1 || e[0].Text != "API Error: 500" {
		t.Errorf("errors = %+v", e)
	}
}

// A write Claude Code refused (a path it deems sensitive, headless
// acceptEdits) is a permission_denied event of its own, from the result's
// permission_denials, and no file_change; the session's cost is marked as
// such.
func TestClaudePermissionDenials(t *testing.T) {
	p := Claude{}.NewParser()
	var ev []Event
	for _, l := range []string{
		`{"type":"system","subtype":"init","session_id":"s1","cwd":"/w","model":"m","tools":["Write"],"permissionMode":"acceptEdits","uuid":"u0"}`,
		`{"type":"assistant","message":{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"tool_use","id":"toolu_w","name":"Write","input":{"file_path":"/w/hello.txt","content":"hi"}}]},"parent_tool_use_id":null,"session_id":"s1","uuid":"u1"}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_w","content":"Claude requested permissions to write to /w/hello.txt, but you haven't granted it yet.","is_error":true}]},"parent_tool_use_id":null,"session_id":"s1","uuid":"u2"}`,
		`{"type":"assistant","message":{"id":"msg_2","type":"message","role":"assistant","content":[{"type":"tool_use","id":"toolu_b","name":"Bash","input":{"command":"git commit -am x","description":"commit"}}]},"parent_tool_use_id":null,"session_id":"s1","uuid":"u3"}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_b","content":"This command requires approval","is_error":true}]},"parent_tool_use_id":null,"session_id":"s1","uuid":"u4"}`,
		`{"type":"assistant","message":{"id":"msg_3","type":"message","role":"assistant","content":[{"type":"text","text":"I could not write the file."}]},"parent_tool_use_id":null,"session_id":"s1","uuid":"u5"}`,
		`{"type":"result","subtype":"success","is_error":false,"result":"I could not write the file.","num_turns":3,"duration_ms":1200,"total_cost_usd":0.02,"usage":{"input_tokens":50,"output_tokens":20,"cache_creation_input_tokens":0,"cache_read_input_tokens":0},"permission_denials":[{"tool_name":"Write","tool_use_id":"toolu_w","tool_input":{"file_path":"/w/hello.txt","content":"hi"}},{"tool_name":"Bash","tool_use_id":"toolu_b","tool_input":{"command":"git commit -am x","description":"commit"}}],"terminal_reason":"completed","session_id":"s1","uuid":"u6"}`,
	} {
		ev = append(ev, p.Line([]byte(l), testNow)...)
	}
	ev = append(ev, p.Finish(0, testNow)...)
	if fc := ofKind(ev, KindFileChange); len(fc) != 0 {
		t.Errorf("a refused write logged as a file change: %+v", fc)
	}
	d := ofKind(ev, KindDenied)
	if len(d) != 2 || d[0].Tool != "Write" || d[0].Text != "/w/hello.txt" || d[0].Data["id"] != "toolu_w" ||
		d[1].Tool != "Bash" || d[1].Text != "git commit -am x" {
		t.Errorf("denials = %+v", d)
	}
	c := completion(t, ev, true)
	if c.Data[DataSessionCost] != true || c.Data[DataSessionTokens] == true {
		t.Errorf("completion data = %+v", c.Data)
	}
}

// Partial-message deltas (--include-partial-messages) are not log
// entries: the whole assistant message that follows is.
func TestClaudePartialMessagesOneEntry(t *testing.T) {
	p := Claude{}.NewParser()
	var ev []Event
	for _, l := range []string{
		`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel"}},"session_id":"s1","uuid":"d1","parent_tool_use_id":null}`,
		`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"lo"}},"session_id":"s1","uuid":"d2","parent_tool_use_id":null}`,
		`{"type":"assistant","message":{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"text","text":"Hello"}]},"parent_tool_use_id":null,"session_id":"s1","uuid":"u1"}`,
	} {
		ev = append(ev, p.Line([]byte(l), testNow)...)
	}
	if got := kindsOf(ev); !slices.Equal(got, []string{KindLog, KindMessage}) {
		t.Errorf("kinds = %v", got)
	}
}
