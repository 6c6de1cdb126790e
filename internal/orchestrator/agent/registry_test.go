package agent

import (
	"strings"
	"testing"
)

func TestLookup(t *testing.T) {
	for _, kind := range []string{"CLAUDECODE", "GEMINI", "CODEX", "OPENCODE", "COMMAND"} {
		a, err := Lookup(kind)
		if err != nil || a.Kind() != kind {
			t.Errorf("Lookup(%q) = %v, %v", kind, a, err)
		}
		if a2, err := Lookup(" " + strings.ToLower(kind)); err != nil || a2.Kind() != kind {
			t.Errorf("Lookup lower %q: %v", kind, err)
		}
		if a.NewParser() == nil {
			t.Errorf("%s: nil parser", kind)
		}
	}
	_, err := Lookup("AIDER")
	if err == nil {
		t.Fatal("Lookup(AIDER) succeeded")
	}
	for _, kind := range []string{"AIDER", "CLAUDECODE", "GEMINI", "CODEX", "OPENCODE", "COMMAND"} {
		if !strings.Contains(err.Error(), kind) {
			t.Errorf("error %q does not name %s", err, kind)
		}
	}
}

func TestCheckMissingCLI(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	for kind, want := range map[string]string{
		"CLAUDECODE": "claude is not installed: npm install -g @anthropic-ai/claude-code@2.1.331",
		"GEMINI":     "gemini is not installed: npm install -g @google/gemini-cli@0.61.0",
		"CODEX":      "codex is not installed: npm install -g @openai/codex@0.169.0",
		"OPENCODE":   "opencode is not installed: npm install -g opencode-ai@1.18.33",
	} {
		a, _ := Lookup(kind)
		if err := a.Check(RunSpec{}); err == nil || err.Error() != want {
			t.Errorf("%s: Check = %v, want %q", kind, err, want)
		}
	}
}

func TestInvocationBadArgs(t *testing.T) {
	for _, kind := range []string{"CLAUDECODE", "GEMINI", "CODEX", "OPENCODE"} {
		a, _ := Lookup(kind)
		if _, err := a.Invocation(RunSpec{Config: map[string]any{"args": "--oops"}}); err == nil {
			t.Errorf("%s accepted a string config.args", kind)
		}
	}
}

// Invalid, truncated or foreign lines become log events with the raw text.
func TestParsersInvalidLines(t *testing.T) {
	for _, kind := range []string{"CLAUDECODE", "GEMINI", "CODEX", "OPENCODE", "COMMAND"} {
		a, _ := Lookup(kind)
		p := a.NewParser()
		for _, line := range []string{`{"type":"assistant","message":{"content":[{"type":"te`, "plain text", `[1,2]`, `null`, `{"type":"from_the_future","x":1}`} {
			ev := p.Line([]byte(line), testNow)
			if len(ev) != 1 || ev[0].Kind != KindLog || ev[0].Text != line {
				t.Errorf("%s: Line(%q) = %+v", kind, line, ev)
			}
		}
		if kind != "COMMAND" {
			if ev := p.Line([]byte("  "), testNow); len(ev) != 0 {
				t.Errorf("%s: blank line = %+v", kind, ev)
			}
		}
	}
}

// Fields of the wrong JSON type are ignored, not a panic.
func TestParsersWrongFieldTypes(t *testing.T) {
	lines := []string{
		`{"type":"system","subtype":"init","session_id":5}`,
		`{"type":"assistant","message":{"content":"text"},"error":3}`,
		`{"type":"assistant","message":{"content":[1,null,{"type":"tool_use","input":"x"}]}}`,
		`{"type":"user","message":{"content":[{"type":"tool_result","content":{"a":1}}]}}`,
		`{"type":"result","usage":[],"total_cost_usd":"1"}`,
		`{"type":"init","session_id":null}`,
		`{"type":"tool_use","parameters":[]}`,
		`{"type":"result","stats":"x"}`,
		`{"type":"item.completed","item":{"type":"file_change","changes":[1,{"path":2}]}}`,
		`{"type":"item.started","item":null}`,
		`{"type":"turn.completed","usage":5}`,
		`{"type":"tool_use","sessionID":1,"part":{"tool":"edit","state":{"input":[]}}}`,
		`{"type":"step_finish","part":{"tokens":{"cache":3}}}`,
		`{"type":"error","error":"x"}`,
		`{"type":"done","rejected":"x"}`,
	}
	for _, kind := range []string{"CLAUDECODE", "GEMINI", "CODEX", "OPENCODE"} {
		a, _ := Lookup(kind)
		p := a.NewParser()
		for _, l := range lines {
			p.Line([]byte(l), testNow)
		}
		if ev := p.Finish(0, testNow); len(ofKind(ev, KindCompletion)) > 1 {
			t.Errorf("%s: %+v", kind, ev)
		}
	}
}

func FuzzParsers(f *testing.F) {
	for _, s := range []string{
		`{"type":"system","subtype":"init","session_id":"s"}`,
		`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t","name":"Edit","input":{"file_path":"a"}}]}}`,
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"x"}]}]}}`,
		`{"type":"result","subtype":"success","is_error":false,"total_cost_usd":0.1,"usage":{"input_tokens":1}}`,
		`{"type":"init","session_id":"g"}`,
		`{"type":"tool_result","tool_id":"t","status":"error","error":{"message":"m"}}`,
		`{"type":"thread.started","thread_id":"c"}`,
		`{"type":"item.completed","item":{"type":"file_change","changes":[{"path":"a","kind":"add"}]}}`,
		`{"type":"turn.failed","error":{"message":"m"}}`,
		`{"type":"tool_use","sessionID":"o","part":{"tool":"write","state":{"status":"completed","input":{"filePath":"a"}}}}`,
		`{"type":"step_finish","sessionID":"o","part":{"cost":0.1,"tokens":{"input":1,"cache":{"read":1}}}}`,
		`{"type":`, "", "\x00\xff",
	} {
		f.Add([]byte(s), 0)
	}
	f.Fuzz(func(t *testing.T, line []byte, code int) {
		for _, kind := range []string{"CLAUDECODE", "GEMINI", "CODEX", "OPENCODE", "COMMAND"} {
			a, _ := Lookup(kind)
			p := a.NewParser()
			p.Line(line, testNow)
			p.Line(line, testNow)
			_ = p.SessionID()
			if ev := p.Finish(code, testNow); len(ofKind(ev, KindCompletion)) > 1 {
				t.Fatalf("%s: two completions", kind)
			}
		}
	})
}

// Name gives the agents as --agent names them, whatever the kind's case,
// and an unknown kind in lower case.
func TestName(t *testing.T) {
	for kind, want := range map[string]string{
		ToolClaudeCode: "claude", ToolCodex: "codex", ToolGemini: "gemini", ToolOpenCode: "opencode",
		ToolCommand: "command", "command": "command", "FAKE": "fake",
	} {
		if got := Name(kind); got != want {
			t.Errorf("Name(%q) = %q, want %q", kind, got, want)
		}
	}
}
