package orchestrator

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/orchestrator/agent"
	"github.com/sudocode/sudocode/internal/testkit"
)

// replayAdapter runs config.script with /bin/sh -c and reads its stdout
// with a real CLI's parser: the script prints that CLI's recorded lines.
type replayAdapter struct{ parser func() agent.Parser }

func (replayAdapter) Kind() string              { return "REPLAY" }
func (replayAdapter) Check(agent.RunSpec) error { return nil }
func (replayAdapter) Credentials() []string     { return nil }
func (a replayAdapter) NewParser() agent.Parser { return a.parser() }
func (replayAdapter) Invocation(s agent.RunSpec) (agent.Invocation, error) {
	script, _ := s.Config["script"].(string)
	return agent.Invocation{Argv: []string{"/bin/sh", "-c", script}, Env: []string{"RESUME=" + s.ResumeSession}, Stdin: s.Instructions}, nil
}

var replayAdapters = map[string]agent.Adapter{
	"CLAUDE_REPLAY":   replayAdapter{agent.Claude{}.NewParser},
	"CODEX_REPLAY":    replayAdapter{agent.Codex{}.NewParser},
	"OPENCODE_REPLAY": replayAdapter{agent.OpenCode{}.NewParser},
}

// replay is a script printing lines (single-quoted for sh) then exiting code.
func replay(code string, lines ...string) json.RawMessage {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString("printf '%s\\n' '" + strings.ReplaceAll(l, "'", `'\''`) + "'\n")
	}
	b.WriteString("exit " + code + "\n")
	return cfg(b.String())
}

func eventsOf(t *testing.T, f *fixture, id, kind string) []agent.Event {
	t.Helper()
	evs, err := f.o.Logs(context.Background(), id, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []agent.Event
	for _, e := range evs {
		if e.Event.Kind == kind {
			out = append(out, e.Event)
		}
	}
	return out
}

// A write the CLI refused is not a silent noop: it is a permission_denied
// event in the log and in report_task, and the only file_change is git's.
func TestRefusedWriteIsReported(t *testing.T) {
	f := newFixture(t, testkit.Repo(t), noPool)
	task := f.wait(t, f.create(t, CreateInput{Agent: "CLAUDE_REPLAY", Description: "write hello", Config: replay("0",
		`{"type":"system","subtype":"init","session_id":"s1","cwd":"/w","model":"m","permissionMode":"acceptEdits"}`,
		`{"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"toolu_w","name":"Write","input":{"file_path":"hello.txt","content":"hi"}}]},"session_id":"s1"}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_w","content":"Claude requested permissions to write to hello.txt, but you haven't granted it yet.","is_error":true}]},"session_id":"s1"}`,
		`{"type":"result","subtype":"success","is_error":false,"result":"I could not write it.","total_cost_usd":0.01,"usage":{"input_tokens":5,"output_tokens":2},"permission_denials":[{"tool_name":"Write","tool_use_id":"toolu_w","tool_input":{"file_path":"hello.txt","content":"hi"}}],"session_id":"s1"}`,
	)}).ID)
	if d := eventsOf(t, f, task.ID, agent.KindDenied); len(d) != 1 || d[0].Tool != "Write" || d[0].Text != "hello.txt" {
		t.Errorf("denial events %+v", d)
	}
	if fc := eventsOf(t, f, task.ID, agent.KindFileChange); len(fc) != 1 || fc[0].Data["source"] != "git" || len(fc[0].Files) != 0 {
		t.Errorf("file changes %+v", fc)
	}
	rep, err := f.o.Report(context.Background(), task.ID)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Outcome != OutcomeNoop || len(rep.PermissionDenials) != 1 || rep.PermissionDenials[0].Tool != "Write" {
		t.Errorf("report %+v", rep)
	}
}

// A failed run's reason, written by the CLI to stdout, is in the task's
// error, not just its exit code and an empty stderr.
func TestFailureReasonFromStdout(t *testing.T) {
	f := newFixture(t, testkit.Repo(t), noPool)
	for tool, c := range map[string]struct {
		script json.RawMessage
		reason string
	}{
		"CLAUDE_REPLAY": {replay("1",
			`{"type":"system","subtype":"init","session_id":"s1","model":"m"}`,
			`{"type":"result","subtype":"success","is_error":true,"result":"API Error: 401 {\"type\":\"error\",\"error\":{\"type\":\"authentication_error\",\"message\":\"invalid x-api-key\"}}","total_cost_usd":0,"usage":{"input_tokens":0,"output_tokens":0},"permission_denials":[],"session_id":"s1"}`,
		), "API Error: 401"},
		"CODEX_REPLAY": {replay("1",
			`{"type":"thread.started","thread_id":"t1"}`,
			`{"type":"turn.started"}`,
			`{"type":"error","message":"unexpected status 400 Bad Request: model not supported"}`,
			`{"type":"turn.failed","error":{"message":"unexpected status 400 Bad Request: model not supported"}}`,
		), "model not supported"},
		"OPENCODE_REPLAY": {replay("1",
			`{"type":"error","timestamp":1,"sessionID":"ses_1","error":{"name":"APIError","data":{"message":"Unauthorized: invalid api key","statusCode":401,"isRetryable":false}}}`,
		), "Unauthorized: invalid api key"},
	} {
		task := f.wait(t, f.create(t, CreateInput{Agent: tool, Description: "fail", Config: c.script}).ID)
		if task.Status != StatusFailed || task.Error.Type != ErrTypeExit || !strings.Contains(task.Error.Details.Message, c.reason) {
			t.Errorf("%s: %+v %+v", tool, task.Status, task.Error)
		}
	}
}

// Tokens and cost are per run and for the whole task, for every CLI,
// though Claude's cost and Codex's tokens count the whole session.
func TestUsagePerRunAndTask(t *testing.T) {
	f := newFixture(t, testkit.Repo(t), noPool)
	ctx := context.Background()
	// Each script reports the first run's figures, or the resumed run's
	// (a session-wide total for the cumulative one).
	claude := `if [ -z "$RESUME" ]; then c=0.10; i=100; o=50; else c=0.25; i=200; o=80; fi
echo '{"type":"system","subtype":"init","session_id":"s1","model":"m"}'
echo '{"type":"result","subtype":"success","is_error":false,"result":"ok","total_cost_usd":'$c',"usage":{"input_tokens":'$i',"output_tokens":'$o'},"session_id":"s1"}'`
	codex := `if [ -z "$RESUME" ]; then i=1000; o=100; else i=2500; o=300; fi
echo '{"type":"thread.started","thread_id":"t1"}'
echo '{"type":"item.completed","item":{"id":"i1","type":"agent_message","text":"ok"}}'
echo '{"type":"turn.completed","usage":{"input_tokens":'$i',"cached_input_tokens":0,"output_tokens":'$o'}}'`
	for tool, c := range map[string]struct {
		script        string
		runCost       float64
		taskCost      float64
		runIn, taskIn int64
	}{
		"CLAUDE_REPLAY": {claude, 0.15, 0.25, 200, 300},
		"CODEX_REPLAY":  {codex, 0, 0, 1500, 2500},
	} {
		task := f.wait(t, f.create(t, CreateInput{Agent: tool, Description: "usage", Config: cfg(c.script)}).ID)
		if _, err := f.o.Update(ctx, task.ID, UpdateInput{Instructions: "more"}); err != nil {
			t.Fatal(err)
		}
		f.wait(t, task.ID)
		rep, err := f.o.Report(ctx, task.ID)
		if err != nil {
			t.Fatal(err)
		}
		u := rep.Usage
		if u.Run.Tokens == nil || u.Task.Tokens == nil || u.Run.Tokens.Input != c.runIn || u.Task.Tokens.Input != c.taskIn {
			t.Errorf("%s: tokens run %+v task %+v", tool, u.Run.Tokens, u.Task.Tokens)
		}
		if c.taskCost != 0 && (u.Run.CostUSD == nil || u.Task.CostUSD == nil ||
			abs(*u.Run.CostUSD-c.runCost) > 1e-9 || abs(*u.Task.CostUSD-c.taskCost) > 1e-9) {
			t.Errorf("%s: cost run %v task %v", tool, u.Run.CostUSD, u.Task.CostUSD)
		}
	}
}

func abs(f float64) float64 { return max(f, -f) }

// What a process writes to stderr is in its log, marked as stderr: a
// failing git commit says why, not just its exit code.
func TestStderrInLog(t *testing.T) {
	f := newFixture(t, testkit.Repo(t), noPool)
	task := f.wait(t, f.create(t, CreateInput{Agent: "COMMAND", Description: "commit nothing", Config: shell(`git commit --no-such-option -m x`)}).ID)
	if task.Status != StatusFailed {
		t.Fatalf("status %s", task.Status)
	}
	var text []string
	for _, e := range eventsOf(t, f, task.ID, agent.KindStderr) {
		text = append(text, e.Text)
	}
	if !strings.Contains(strings.Join(text, "\n"), "unknown option") {
		t.Errorf("stderr events %q", text)
	}
}
