package agent

import (
	"slices"
	"testing"
)

// geminiScript prints recorded Gemini CLI stream-json shapes (as Gemini CLI prints them: docs/agent-clis.md#gemini-cli).
const geminiScript = `
case " $* " in
  *" --skip-trust "*) ;;
  *) echo "Gemini CLI is not running in a trusted directory" >&2; exit 55;;
esac
sid="${resume:-4f1c2a7e-gemini-session}"
cat <<JSON
{"type":"init","timestamp":"2026-11-21T12:00:00.000Z","session_id":"$sid","model":"gemini-2.5-pro"}
{"type":"message","timestamp":"2026-11-21T12:00:00.100Z","role":"user","content":"(prompt echo)"}
JSON
if [ -n "$STANDIN_FAIL" ]; then
cat <<JSON
{"type":"error","timestamp":"2026-11-21T12:00:01.000Z","severity":"warning","message":"Quota nearly exhausted"}
{"type":"result","timestamp":"2026-11-21T12:00:02.000Z","status":"error","error":{"type":"FatalTurnLimitedError","message":"Reached max session turns"},"stats":{"total_tokens":30,"input_tokens":20,"output_tokens":10,"cached":0,"input":20,"duration_ms":900,"tool_calls":0}}
JSON
exit 53
fi
cat <<JSON
{"type":"message","timestamp":"2026-11-21T12:00:01.000Z","role":"assistant","content":"Let me ","delta":true}
{"type":"message","timestamp":"2026-11-21T12:00:01.100Z","role":"assistant","content":"edit the file.","delta":true}
{"type":"tool_use","timestamp":"2026-11-21T12:00:01.200Z","tool_name":"write_file","tool_id":"write_file-1","parameters":{"file_path":"$PWD/hello.txt","content":"hi"}}
{"type":"tool_result","timestamp":"2026-11-21T12:00:01.300Z","tool_id":"write_file-1","status":"success","output":"Successfully wrote hello.txt"}
{"type":"tool_use","timestamp":"2026-11-21T12:00:01.400Z","tool_name":"run_shell_command","tool_id":"run_shell_command-2","parameters":{"command":"false"}}
{"type":"tool_result","timestamp":"2026-11-21T12:00:01.500Z","tool_id":"run_shell_command-2","status":"error","error":{"type":"shell_error","message":"exit code 1"}}
{"type":"retry","timestamp":"2026-11-21T12:00:01.600Z","attempt":1}
{"type":"message","timestamp":"2026-11-21T12:00:02.000Z","role":"assistant","content":"Done.","delta":true}
{"type":"result","timestamp":"2026-11-21T12:00:03.000Z","status":"success","stats":{"total_tokens":1450,"input_tokens":1200,"output_tokens":250,"cached":300,"input":900,"duration_ms":3000,"tool_calls":2,"models":{"gemini-2.5-pro":{"total_tokens":1450}}}}
JSON
`

func TestGeminiRun(t *testing.T) {
	logDir := standIn(t, "gemini", geminiScript)
	dir := t.TempDir()
	a, _ := Lookup("gemini")
	res := runAgent(t, a, RunSpec{Instructions: testPrompt, Dir: dir, Config: map[string]any{"model": "flash"}}, logDir)

	assertPromptOnStdin(t, res, testPrompt)
	want := []string{"-p", GeminiPromptFlag, "--output-format", "stream-json", "--approval-mode", "yolo", "--skip-trust", "-m", "flash"}
	if !slices.Equal(res.inv.Argv[1:], want) {
		t.Errorf("argv = %q, want gemini %q", res.inv.Argv, want)
	}
	if !hasEnv(res, "PWD="+dir) || !hasEnv(res, "GEMINI_CLI_TRUST_WORKSPACE=true") {
		t.Errorf("env lacks PWD / trust: %v", res.inv.Env)
	}
	if res.parser.SessionID() != "4f1c2a7e-gemini-session" {
		t.Errorf("session = %q", res.parser.SessionID())
	}
	ev := res.events
	msgs := ofKind(ev, KindMessage)
	// The chunks of one message are one entry; text said before a tool
	// call is a message of its own.
	if len(msgs) != 2 || msgs[0].Text != "Let me edit the file." || msgs[1].Text != "Done." ||
		!msgs[0].Time.Equal(testNow) {
		t.Errorf("messages = %+v", msgs)
	}
	calls := ofKind(ev, KindToolCall)
	// A call's text is what it is about (its file or command), for the log.
	if len(calls) != 2 || calls[0].Tool != "write_file" || calls[1].Tool != "run_shell_command" ||
		calls[0].Text != dir+"/hello.txt" || calls[1].Text != "false" {
		t.Errorf("calls = %+v", calls)
	}
	results := ofKind(ev, KindToolResult)
	if len(results) != 2 || results[0].Tool != "write_file" || results[0].Text != "Successfully wrote hello.txt" ||
		results[1].Data["is_error"] != true || results[1].Text != "exit code 1" || results[1].Tool != "run_shell_command" {
		t.Errorf("results = %+v", results)
	}
	if fc := ofKind(ev, KindFileChange); len(fc) != 0 {
		t.Errorf("file changes from tool calls = %+v", fc)
	}
	if f, _ := calls[0].Data[DataFiles].([]string); !slices.Equal(f, []string{dir + "/hello.txt"}) {
		t.Errorf("write_file call = %+v", calls[0].Data)
	}
	if u := ofKind(ev, KindUsage); len(u) != 1 || *u[0].Tokens != (Tokens{Input: 1200, Output: 250, CacheRead: 300}) || u[0].CostUSD != nil {
		t.Errorf("usage = %+v", u)
	}
	if logs := ofKind(ev, KindLog); len(logs) != 2 || logs[1].Text == "" { // session + unknown "retry"
		t.Errorf("logs = %+v", logs)
	}
	if c := completion(t, ev, true); c.Tokens == nil || c.Tokens.Input != 1200 || c.Text != "Done." { // the last message, not all the run's text
		t.Errorf("completion = %+v", c)
	}
}

func TestGeminiResume(t *testing.T) {
	logDir := standIn(t, "gemini", geminiScript)
	res := runAgent(t, Gemini{}, RunSpec{Instructions: "Follow-up.", Dir: t.TempDir(), ResumeSession: "4f1c-prev"}, logDir)
	assertPromptOnStdin(t, res, "Follow-up.")
	if flagValue(res.inv.Argv, "--resume") != "4f1c-prev" || flagValue(res.inv.Argv, "-p") != GeminiPromptFlag {
		t.Errorf("argv = %q", res.inv.Argv)
	}
	if res.parser.SessionID() != "4f1c-prev" {
		t.Errorf("session = %q", res.parser.SessionID())
	}
	completion(t, res.events, true)
}

func TestGeminiFailure(t *testing.T) {
	logDir := standIn(t, "gemini", geminiScript)
	res := runAgent(t, Gemini{}, RunSpec{Instructions: testPrompt, Dir: t.TempDir()}, logDir, "STANDIN_FAIL=1")
	if res.exit != 53 {
		t.Fatalf("exit = %d", res.exit)
	}
	errs := ofKind(res.events, KindError)
	if len(errs) != 2 || errs[0].Data["severity"] != "warning" || errs[1].Text != "Reached max session turns" || errs[1].Data["fatal"] != true {
		t.Errorf("errors = %+v", errs)
	}
	c := completion(t, res.events, false)
	if c.Text != "Reached max session turns" {
		t.Errorf("completion = %+v", c)
	}
	if len(ofKind(res.events, KindMessage)) != 0 {
		t.Errorf("user message echoed as assistant text")
	}
}

// An untrusted workspace: exit 55 before anything reaches stdout.
func TestGeminiUntrustedNoOutput(t *testing.T) {
	logDir := standIn(t, "gemini", "echo 'Gemini CLI is not running in a trusted directory' >&2; exit 55\n")
	res := runAgent(t, Gemini{}, RunSpec{Instructions: "x", Dir: t.TempDir()}, logDir)
	if c := completion(t, res.events, false); c.Data["exit_code"] != 55 || len(res.events) != 1 {
		t.Errorf("events = %+v", res.events)
	}
}

// A tool the headless approval mode removed (or a policy denied) is a
// permission_denied event besides its error result.
func TestGeminiRefusedTool(t *testing.T) {
	p := Gemini{}.NewParser()
	var ev []Event
	for _, l := range []string{
		`{"type":"init","timestamp":"2026-11-21T12:00:00.000Z","session_id":"g1","model":"gemini-2.5-pro"}`,
		`{"type":"tool_use","timestamp":"2026-11-21T12:00:01.000Z","tool_name":"run_shell_command","tool_id":"run_shell_command-1","parameters":{"command":"git commit -am x"}}`,
		`{"type":"tool_result","timestamp":"2026-11-21T12:00:01.100Z","tool_id":"run_shell_command-1","status":"error","error":{"type":"tool_not_registered","message":"Tool \"run_shell_command\" not found in registry."}}`,
		`{"type":"tool_use","timestamp":"2026-11-21T12:00:01.200Z","tool_name":"run_shell_command","tool_id":"run_shell_command-2","parameters":{"command":"false"}}`,
		`{"type":"tool_result","timestamp":"2026-11-21T12:00:01.300Z","tool_id":"run_shell_command-2","status":"error","error":{"type":"shell_error","message":"exit code 1"}}`,
		`{"type":"result","timestamp":"2026-11-21T12:00:02.000Z","status":"success","stats":{"total_tokens":3,"input_tokens":2,"output_tokens":1}}`,
	} {
		ev = append(ev, p.Line([]byte(l), testNow)...)
	}
	d := ofKind(ev, KindDenied)
	if len(d) != 1 || d[0].Tool != "run_shell_command" || d[0].Data["id"] != "run_shell_command-1" {
		t.Errorf("denials = %+v", d)
	}
}
