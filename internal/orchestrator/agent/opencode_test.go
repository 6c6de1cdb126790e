package agent

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// openCodeScript prints recorded `opencode run --format json` shapes (as OpenCode prints them: docs/agent-clis.md#opencode).
const openCodeScript = `
[ "$1" = run ] || { echo "usage: opencode run" >&2; exit 1; }
if [ ! -s "$log/stdin" ]; then echo "You must provide a message or a command" >&2; exit 1; fi
sid="${resume:-ses_5a1b2c3d4e}"
if [ -n "$STANDIN_FAIL" ]; then
cat <<JSON
{"type":"error","timestamp":1763726400000,"sessionID":"$sid","error":{"name":"ProviderAuthError","data":{"providerID":"anthropic","message":"No API key found for anthropic"}}}
JSON
exit 1
fi
cat <<JSON
{"type":"step_start","timestamp":1763726400000,"sessionID":"$sid","part":{"id":"prt_1","sessionID":"$sid","messageID":"msg_1","type":"step-start","snapshot":"abc"}}
{"type":"tool_use","timestamp":1763726401000,"sessionID":"$sid","part":{"id":"prt_2","sessionID":"$sid","messageID":"msg_1","type":"tool","tool":"edit","callID":"call_1","state":{"status":"completed","input":{"filePath":"$PWD/main.go","oldString":"a","newString":"b"},"output":"Edit applied successfully.","title":"main.go","metadata":{},"time":{"start":1763726400500,"end":1763726401000}}}}
{"type":"tool_use","timestamp":1763726401500,"sessionID":"$sid","part":{"id":"prt_3","sessionID":"$sid","messageID":"msg_1","type":"tool","tool":"bash","callID":"call_2","state":{"status":"error","input":{"command":"make lint"},"error":"make: *** No rule to make target 'lint'.","time":{"start":1763726401100,"end":1763726401500}}}}
{"type":"step_finish","timestamp":1763726402000,"sessionID":"$sid","part":{"id":"prt_4","sessionID":"$sid","messageID":"msg_1","type":"step-finish","reason":"tool-calls","cost":0.0125,"tokens":{"input":1000,"output":200,"reasoning":0,"cache":{"read":500,"write":100}}}}
{"type":"step_start","timestamp":1763726402100,"sessionID":"$sid","part":{"id":"prt_5","sessionID":"$sid","messageID":"msg_2","type":"step-start"}}
{"type":"text","timestamp":1763726403000,"sessionID":"$sid","part":{"id":"prt_6","sessionID":"$sid","messageID":"msg_2","type":"text","text":"Changed a to b.","time":{"start":1763726402200,"end":1763726403000}}}
{"type":"step_finish","timestamp":1763726403100,"sessionID":"$sid","part":{"id":"prt_7","sessionID":"$sid","messageID":"msg_2","type":"step-finish","reason":"stop","cost":0.0075,"tokens":{"total":1950,"input":300,"output":50,"reasoning":0,"cache":{"read":1600,"write":0}}}}
{"type":"done","timestamp":1763726403200,"sessionID":"$sid","reason":"idle","rejected":[]}
JSON
`

func TestOpenCodeRun(t *testing.T) {
	logDir := standIn(t, "opencode", openCodeScript)
	dir := t.TempDir()
	a, _ := Lookup("OPENCODE")
	res := runAgent(t, a, RunSpec{Instructions: testPrompt, Dir: dir, Config: map[string]any{"model": "anthropic/claude-sonnet-4-5"}}, logDir)

	assertPromptOnStdin(t, res, testPrompt)
	want := []string{"run", "--format", "json", "--dir", dir, "--auto", "-m", "anthropic/claude-sonnet-4-5"}
	if !slices.Equal(res.inv.Argv[1:], want) {
		t.Errorf("argv = %q, want opencode %q", res.inv.Argv, want)
	}
	if !hasEnv(res, "PWD="+dir) || !slices.Contains(res.inv.Env, "PWD="+dir) {
		t.Errorf("PWD not set to the worktree: %q", res.inv.Env)
	}
	if res.parser.SessionID() != "ses_5a1b2c3d4e" {
		t.Errorf("session = %q", res.parser.SessionID())
	}
	ev := res.events
	if msgs := ofKind(ev, KindMessage); len(msgs) != 1 || msgs[0].Text != "Changed a to b." {
		t.Errorf("messages = %+v", msgs)
	}
	calls := ofKind(ev, KindToolCall)
	if len(calls) != 2 || calls[0].Tool != "edit" || calls[1].Tool != "bash" || calls[0].Data["id"] != "call_1" {
		t.Errorf("calls = %+v", calls)
	}
	results := ofKind(ev, KindToolResult)
	if len(results) != 2 || results[0].Text != "Edit applied successfully." || results[1].Data["is_error"] != true ||
		results[1].Text != "make: *** No rule to make target 'lint'." {
		t.Errorf("results = %+v", results)
	}
	if fc := ofKind(ev, KindFileChange); len(fc) != 0 {
		t.Errorf("file changes from tool calls = %+v", fc)
	}
	if f, _ := calls[0].Data[DataFiles].([]string); !slices.Equal(f, []string{dir + "/main.go"}) {
		t.Errorf("edit call = %+v", calls[0].Data)
	}
	u := ofKind(ev, KindUsage)
	if len(u) != 2 || *u[0].CostUSD != 0.0125 || *u[1].Tokens != (Tokens{Input: 300, Output: 50, CacheRead: 1600}) || u[1].Data["cumulative"] != false {
		t.Errorf("usage = %+v", u)
	}
	c := completion(t, ev, true)
	if c.Text != "Changed a to b." || *c.CostUSD != 0.0125+0.0075 ||
		*c.Tokens != (Tokens{Input: 1300, Output: 250, CacheRead: 2100, CacheWrite: 100}) || c.Data["degraded"] != nil {
		t.Errorf("completion = %+v tokens %+v", c, c.Tokens)
	}
	if ev[len(ev)-1].Kind != KindCompletion || len(ofKind(ev, KindError)) != 0 {
		t.Errorf("events = %v", kindsOf(ev))
	}
}

func TestOpenCodeResume(t *testing.T) {
	logDir := standIn(t, "opencode", openCodeScript)
	res := runAgent(t, OpenCode{}, RunSpec{Instructions: "More.", Dir: t.TempDir(), ResumeSession: "ses_prev", Config: map[string]any{"agent": "build"}}, logDir)
	assertPromptOnStdin(t, res, "More.")
	if flagValue(res.inv.Argv, "--session") != "ses_prev" || flagValue(res.inv.Argv, "--agent") != "build" || slices.Contains(res.inv.Argv, "-m") {
		t.Errorf("argv = %q", res.inv.Argv)
	}
	if res.parser.SessionID() != "ses_prev" {
		t.Errorf("session = %q", res.parser.SessionID())
	}
	completion(t, res.events, true)
}

func TestOpenCodeFailure(t *testing.T) {
	logDir := standIn(t, "opencode", openCodeScript)
	res := runAgent(t, OpenCode{}, RunSpec{Instructions: testPrompt, Dir: t.TempDir()}, logDir, "STANDIN_FAIL=1")
	if res.exit != 1 {
		t.Fatalf("exit = %d", res.exit)
	}
	errs := ofKind(res.events, KindError)
	if len(errs) != 1 || errs[0].Text != "No API key found for anthropic" || errs[0].Data["name"] != "ProviderAuthError" {
		t.Errorf("errors = %+v", errs)
	}
	// The reason the CLI gave is the completion's text, not just the code.
	if c := completion(t, res.events, false); c.Text != "No API key found for anthropic" || c.Data["exit_code"] != 1 {
		t.Errorf("completion = %+v", c)
	}
}

// Exit 0 with no output, or with rejected permissions.
func TestOpenCodeDegraded(t *testing.T) {
	p := OpenCode{}.NewParser()
	p.Line([]byte(`{"type":"step_start","timestamp":1,"sessionID":"ses_x","part":{"type":"step-start"}}`), testNow)
	completion(t, p.Finish(0, testNow), false)

	p = OpenCode{}.NewParser()
	p.Line([]byte(`{"type":"text","timestamp":1,"sessionID":"ses_x","part":{"type":"text","text":"I could not edit."}}`), testNow)
	p.Line([]byte(`{"type":"done","timestamp":2,"sessionID":"ses_x","reason":"idle","rejected":["external_directory"]}`), testNow)
	ev := p.Finish(0, testNow)
	c := completion(t, ev, true)
	if c.Data["degraded"] != true {
		t.Errorf("completion = %+v", c)
	}

	// Rejected permissions are permission_denied events, and so is a tool
	// call auto-rejected in run mode.
	p = OpenCode{}.NewParser()
	ev = p.Line([]byte(`{"type":"tool_use","timestamp":1,"sessionID":"ses_x","part":{"type":"tool","tool":"bash","callID":"call_9","state":{"status":"error","input":{"command":"rm -rf /tmp/x"},"error":"Error: The user rejected permission to use this specific tool call."}}}`), testNow)
	ev = append(ev, p.Line([]byte(`{"type":"done","timestamp":2,"sessionID":"ses_x","reason":"idle","rejected":["external_directory"]}`), testNow)...)
	if d := ofKind(ev, KindDenied); len(d) != 2 || d[0].Tool != "bash" || d[1].Tool != "external_directory" {
		t.Errorf("denials = %+v", d)
	}
}

// Each task's OpenCode runs keep their sessions in a data directory of the
// task's own: runs of two tasks at once do not share one database.
func TestOpenCodeDataPerTask(t *testing.T) {
	var homes []string
	for _, task := range []string{"t1", "t2"} {
		cfg := filepath.Join(t.TempDir(), task)
		inv, err := OpenCode{}.Invocation(RunSpec{Instructions: "Go.", Dir: t.TempDir(), ConfigDir: cfg})
		if err != nil {
			t.Fatal(err)
		}
		var home string
		for _, kv := range inv.Env {
			if v, ok := strings.CutPrefix(kv, "XDG_DATA_HOME="); ok {
				home = v
			}
		}
		if home != OpenCodeDataHome(cfg) || !strings.HasPrefix(home, cfg+string(filepath.Separator)) {
			t.Fatalf("XDG_DATA_HOME = %q, want under the task's %s", home, cfg)
		}
		dirs, _ := OwnPaths(ToolOpenCode, func(k string) string { return map[string]string{"XDG_DATA_HOME": home}[k] }, "/home/u")
		if !slices.Contains(dirs, filepath.Join(home, "opencode")) {
			t.Fatalf("the box would not bind the task's data directory: %v", dirs)
		}
		homes = append(homes, home)
	}
	if homes[0] == homes[1] {
		t.Fatalf("two tasks share %s", homes[0])
	}
	if got := OpenCodeLogin(func(string) string { return "" }, "/home/u"); got != "/home/u/.local/share/opencode/auth.json" {
		t.Fatalf("login %s", got)
	}
}
