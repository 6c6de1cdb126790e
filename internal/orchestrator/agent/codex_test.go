package agent

import (
	"slices"
	"strings"
	"testing"
)

// codexScript prints recorded `codex exec --json` shapes (as Codex prints them: docs/agent-clis.md#codex).
const codexScript = `
[ "$1" = exec ] || { echo "usage: codex exec" >&2; exit 2; }
if [ ! -s "$log/stdin" ]; then echo "No prompt provided via stdin." >&2; exit 1; fi
tid="${resume:-019a7c3e-codex-thread}"
cat <<JSON
{"type":"thread.started","thread_id":"$tid"}
{"type":"turn.started"}
JSON
if [ -n "$STANDIN_FAIL" ]; then
cat <<JSON
{"type":"item.completed","item":{"id":"item_0","type":"error","message":"Falling back from WebSockets to HTTPS transport"}}
{"type":"error","message":"stream disconnected before completion"}
{"type":"turn.failed","error":{"message":"stream disconnected before completion"}}
JSON
exit 1
fi
cat <<JSON
{"type":"item.completed","item":{"id":"item_0","type":"reasoning","text":"**Inspecting the repo**"}}
{"type":"item.started","item":{"id":"item_1","type":"command_execution","command":"bash -lc ls","aggregated_output":"","exit_code":null,"status":"in_progress"}}
{"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"bash -lc ls","aggregated_output":"go.mod\nmain.go\n","exit_code":0,"status":"completed"}}
{"type":"item.started","item":{"id":"item_2","type":"todo_list","items":[{"text":"fix bug","completed":false}]}}
{"type":"item.updated","item":{"id":"item_2","type":"todo_list","items":[{"text":"fix bug","completed":true}]}}
{"type":"item.completed","item":{"id":"item_3","type":"file_change","changes":[{"path":"$PWD/main.go","kind":"update"},{"path":"$PWD/main_test.go","kind":"add"}],"status":"completed"}}
{"type":"item.started","item":{"id":"item_4","type":"mcp_tool_call","server":"docs","tool":"search","arguments":{"q":"x"},"status":"in_progress"}}
{"type":"item.completed","item":{"id":"item_4","type":"mcp_tool_call","server":"docs","tool":"search","arguments":{"q":"x"},"result":{"content":[{"type":"text","text":"found"}],"structured_content":null},"status":"completed"}}
{"type":"item.completed","item":{"id":"item_5","type":"agent_message","text":"Fixed the bug and added a test."}}
{"type":"turn.completed","usage":{"input_tokens":24763,"cached_input_tokens":24448,"output_tokens":122,"reasoning_output_tokens":64}}
JSON
`

func TestCodexRun(t *testing.T) {
	logDir := standIn(t, "codex", codexScript)
	dir := t.TempDir()
	a, _ := Lookup("CODEX")
	res := runAgent(t, a, RunSpec{Instructions: testPrompt, Dir: dir, Config: map[string]any{"model": "gpt-5-codex"}}, logDir)

	assertPromptOnStdin(t, res, testPrompt)
	want := []string{"exec", "--json", "--cd", dir, "--sandbox", "workspace-write", "-c", `approval_policy="never"`, "-m", "gpt-5-codex"}
	if !slices.Equal(res.inv.Argv[1:], want) {
		t.Errorf("argv = %q, want codex %q", res.inv.Argv, want)
	}
	if res.parser.SessionID() != "019a7c3e-codex-thread" {
		t.Errorf("session = %q", res.parser.SessionID())
	}
	ev := res.events
	msgs := ofKind(ev, KindMessage)
	if len(msgs) != 2 || msgs[0].Data["reasoning"] != true || msgs[1].Text != "Fixed the bug and added a test." {
		t.Errorf("messages = %+v", msgs)
	}
	calls := ofKind(ev, KindToolCall)
	// Codex reports a patch only once applied (item.completed): the
	// call is logged with its result, so that every result has its call.
	if len(calls) != 3 || calls[0].Tool != "command_execution" || calls[0].Text != "bash -lc ls" ||
		calls[1].Tool != "file_change" || calls[1].Data["id"] != "item_3" || calls[2].Tool != "search" {
		t.Errorf("calls = %+v", calls)
	} else if f, _ := calls[1].Data[DataFiles].([]string); !slices.Equal(f, []string{dir + "/main.go", dir + "/main_test.go"}) {
		t.Errorf("file_change call = %+v", calls[1])
	}
	results := ofKind(ev, KindToolResult)
	if len(results) != 3 || results[0].Text != "go.mod\nmain.go\n" || results[0].Data["exit_code"] != int64(0) ||
		results[0].Data["is_error"] != false || results[2].Text != "found" || results[2].Data["server"] != "docs" {
		t.Errorf("results = %+v", results)
	}
	// The patch item is a tool result naming its files; what changed is
	// read from git.
	if fc := ofKind(ev, KindFileChange); len(fc) != 0 {
		t.Errorf("file changes from the stream = %+v", fc)
	}
	if f, _ := results[1].Data[DataFiles].([]string); results[1].Tool != "file_change" || !slices.Equal(f, []string{dir + "/main.go", dir + "/main_test.go"}) {
		t.Errorf("file_change result = %+v", results[1])
	}
	u := ofKind(ev, KindUsage)
	if len(u) != 1 || *u[0].Tokens != (Tokens{Input: 24763, Output: 122, CacheRead: 24448}) || u[0].Data["reasoning_tokens"] != int64(64) {
		t.Errorf("usage = %+v", u)
	}
	if logs := ofKind(ev, KindLog); len(logs) != 3 || !strings.HasPrefix(logs[2].Text, "plan: ") {
		t.Errorf("logs = %+v", logs)
	}
	c := completion(t, ev, true)
	if c.Text != "Fixed the bug and added a test." || c.Tokens == nil || c.Tokens.Output != 122 || c.Data[DataSessionTokens] != true {
		t.Errorf("completion = %+v", c)
	}
}

func TestCodexResume(t *testing.T) {
	logDir := standIn(t, "codex", codexScript)
	dir := t.TempDir()
	res := runAgent(t, Codex{}, RunSpec{Instructions: "And the docs.", Dir: dir, ResumeSession: "019a-prev",
		Config: map[string]any{"sandbox": "danger-full-access", "args": []string{"--skip-git-repo-check"}}}, logDir)
	assertPromptOnStdin(t, res, "And the docs.")
	argv := res.inv.Argv
	// Every option before the resume subcommand, which ends the argv.
	if !slices.Equal(argv[len(argv)-2:], []string{"resume", "019a-prev"}) || flagValue(argv, "--sandbox") != "danger-full-access" ||
		slices.Index(argv, "--skip-git-repo-check") > slices.Index(argv, "resume") || flagValue(argv, "--cd") != dir {
		t.Errorf("argv = %q", argv)
	}
	if res.parser.SessionID() != "019a-prev" {
		t.Errorf("session = %q", res.parser.SessionID())
	}
	completion(t, res.events, true)
}

func TestCodexFailure(t *testing.T) {
	logDir := standIn(t, "codex", codexScript)
	res := runAgent(t, Codex{}, RunSpec{Instructions: testPrompt, Dir: t.TempDir()}, logDir, "STANDIN_FAIL=1")
	if res.exit != 1 {
		t.Fatalf("exit = %d", res.exit)
	}
	errs := ofKind(res.events, KindError)
	if len(errs) != 3 || errs[0].Data["fatal"] != false || errs[1].Data["fatal"] != true || errs[2].Text != "stream disconnected before completion" {
		t.Errorf("errors = %+v", errs)
	}
	c := completion(t, res.events, false)
	if c.Text != "stream disconnected before completion" {
		t.Errorf("completion = %+v", c)
	}
}

// A fatal top-level error makes a later turn.completed a failure (sticky).
func TestCodexStickyFailure(t *testing.T) {
	p := Codex{}.NewParser()
	p.Line([]byte(`{"type":"error","message":"boom"}`), testNow)
	ev := p.Line([]byte(`{"type":"turn.completed","usage":{"input_tokens":1,"cached_input_tokens":0,"output_tokens":1}}`), testNow)
	completion(t, ev, false)
	if fin := p.Finish(1, testNow); len(fin) != 0 {
		t.Errorf("finish = %+v", fin)
	}
}

// A command the approval policy declined is a permission_denied event.
func TestCodexDeclinedCommand(t *testing.T) {
	p := Codex{}.NewParser()
	ev := p.Line([]byte(`{"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"bash -lc 'git commit -am x'","aggregated_output":"","exit_code":null,"status":"declined"}}`), testNow)
	if d := ofKind(ev, KindDenied); len(d) != 1 || d[0].Text != "bash -lc 'git commit -am x'" {
		t.Errorf("events = %+v", ev)
	}
}

// Codex says that its sandbox rejected a patch only in a log line on
// stderr (its JSON stream has no item for it): that line is a refusal.
func TestCodexRejectedPatchOnStderr(t *testing.T) {
	p, ok := Codex{}.NewParser().(StderrReader)
	if !ok {
		t.Fatal("the Codex parser does not read stderr")
	}
	line := "2026-11-25T11:49:45.225362Z ERROR codex_core::tools::router: error=patch rejected: writing is blocked by read-only sandbox; rejected by user approval settings"
	ev := p.StderrLine([]byte(line), testNow)
	if len(ev) != 1 || ev[0].Kind != KindDenied || ev[0].Tool != "file_change" ||
		ev[0].Text != "patch rejected: writing is blocked by read-only sandbox; rejected by user approval settings" {
		t.Errorf("events = %+v", ev)
	}
	if ev := p.StderrLine([]byte(`WARNING: proceeding, even though we could not create PATH aliases`), testNow); len(ev) != 0 {
		t.Errorf("a warning gave %+v", ev)
	}
}
