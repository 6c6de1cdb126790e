package mcpagent_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func (f *fixture) sawUpdate(uri string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Contains(f.updated, uri)
}

// A subscriber hears of a task's new log entries and of its state changes.
func TestSubscribeGetsUpdates(t *testing.T) {
	f := newFixture(t)
	c := f.command("Wait for go", `while [ ! -f go ]; do sleep 0.02; done; echo one; echo two`, nil)
	for _, uri := range []string{"task://" + c.TaskID, "task://" + c.TaskID + "/logs", "task://" + c.TaskID + "/result", "task://list"} {
		if err := f.cs.Subscribe(t.Context(), &mcp.SubscribeParams{URI: uri}); err != nil {
			t.Fatalf("subscribe %s: %v", uri, err)
		}
	}
	writeFile(t, filepath.Join(c.Task.WorktreePath, "go"), "")
	for _, uri := range []string{"task://" + c.TaskID + "/logs", "task://" + c.TaskID + "/result", "task://list", "task://" + c.TaskID} {
		f.until("an update of "+uri, func() bool { return f.sawUpdate(uri) })
	}
	f.wait(c.TaskID)
	logs, _ := f.read("task://" + c.TaskID + "/logs")
	if !strings.Contains(logs, "log: two") {
		t.Errorf("logs after the update: %s", logs)
	}
	// An unsubscribed resource is not announced.
	if f.sawUpdate("agent://status") {
		t.Errorf("got an update of agent://status without a subscription")
	}
}

// create_task with a progress token stays open while the agent works and
// reports its progress; the result is the finished task.
func TestCreateTaskProgress(t *testing.T) {
	f := newFixture(t)
	p := &mcp.CallToolParams{Name: "create_task", Arguments: map[string]any{
		"tool": "COMMAND", "description": "Three steps",
		"config": map[string]any{"command": []string{"sh", "-c", `for i in 1 2 3; do echo "step $i"; sleep 0.3; done`}},
	}}
	p.SetProgressToken("tok-1")
	r := f.callWith(p)
	var c created
	decodeInto(t, r.Result, &c)
	if r.Status != "success" || c.Task.Status != "completed" {
		t.Fatalf("create_task with progress: %s %s", r.Message, r.Result)
	}
	// Notifications are handled apart from the response: wait for the last.
	final := "task " + c.TaskID + " is completed"
	var got []*mcp.ProgressNotificationParams
	f.until("the final progress notification", func() bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		got = slices.Clone(f.progress)
		return len(got) > 0 && got[len(got)-1].Message == final
	})
	if len(got) < 3 {
		t.Fatalf("%d progress notifications, want one per step and a last one", len(got))
	}
	var last float64
	var msgs []string
	for _, n := range got {
		if n.ProgressToken != "tok-1" || n.Progress <= last {
			t.Fatalf("progress %+v after %v", n, last)
		}
		last = n.Progress
		msgs = append(msgs, n.Message)
	}
	if !slices.Contains(msgs, "log: step 1") {
		t.Errorf("messages = %q", msgs)
	}
	// Without a token the call returns at once.
	c2 := f.command("Quick", "sleep 0.5", nil)
	if c2.Task.Status != "in_progress" {
		t.Errorf("without a progress token: %s", c2.Task.Status)
	}
}

func decodeInto(t *testing.T, raw []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
}

// claudeStandIn prints Claude Code's stream-json shapes and records its
// argv (one file per run) in its configuration directory,
// $CLAUDE_CONFIG_DIR: the one place outside its worktree that its sealed
// box lets it write, as it lets the real CLI.
const claudeStandIn = `#!/bin/sh
n=$(ls "$CLAUDE_CONFIG_DIR" | wc -l)
printf '%s\n' "$@" > "$CLAUDE_CONFIG_DIR/run$n"
cat > /dev/null
sid=sess-new
prev=""
for a in "$@"; do [ "$prev" = "--resume" ] && sid="$a"; prev="$a"; done
echo "run $n" >> notes.txt
cat <<JSON
{"type":"system","subtype":"init","session_id":"$sid","cwd":"$PWD","model":"claude-sonnet-4-5","tools":[],"uuid":"u0"}
{"type":"assistant","message":{"id":"m1","type":"message","role":"assistant","content":[{"type":"text","text":"Done with run $n."}]},"parent_tool_use_id":null,"session_id":"$sid","uuid":"u1"}
{"type":"result","subtype":"success","is_error":false,"result":"Done with run $n.","num_turns":1,"duration_ms":10,"total_cost_usd":0.0125,"usage":{"input_tokens":10,"output_tokens":20,"cache_creation_input_tokens":0,"cache_read_input_tokens":0},"session_id":"$sid","uuid":"u2"}
JSON
`

// A Claude Code task whose session can be resumed waits; new instructions
// continue the same session with --resume.
func TestUpdateResumesSession(t *testing.T) {
	bin, logDir := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "claude"), []byte(claudeStandIn), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("CLAUDE_CONFIG_DIR", logDir)
	f := newFixture(t)
	var c created
	f.mustSucceed("create_task", map[string]any{"tool": "CLAUDECODE", "description": "Take notes", "instructions": "write notes"}, &c)
	task := f.wait(c.TaskID)
	if task.Status != "waiting" || task.SessionID != "sess-new" {
		t.Fatalf("after the first run: %s session %q %+v", task.Status, task.SessionID, task.Error)
	}
	rep := f.report(c.TaskID)
	if rep.FinalAnswer != "Done with run 0." || rep.Usage.Run.CostUSD == nil || *rep.Usage.Run.CostUSD != 0.0125 {
		t.Errorf("report = %+v", rep)
	}
	text, _ := f.read("session://claudecode/sess-new")
	if !strings.Contains(text, `"resumable": true`) || !strings.Contains(text, c.TaskID) {
		t.Errorf("session resource = %s", text)
	}

	r := f.mustSucceed("update_task", map[string]any{"taskId": c.TaskID, "instructions": "now add more"}, nil)
	if !strings.Contains(r.Message, "continues session sess-new") {
		t.Errorf("update message = %q", r.Message)
	}
	task = f.wait(c.TaskID)
	args, err := os.ReadFile(filepath.Join(logDir, "run1"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(args), "--resume\nsess-new\n") {
		t.Fatalf("second run's argv:\n%s", args)
	}
	if task.Status != "waiting" {
		t.Fatalf("after the second run: %s", task.Status)
	}
	// Claude's total_cost_usd is the session's: the resumed run cost nothing more.
	if rep = f.report(c.TaskID); rep.Usage.Run.CostUSD == nil || *rep.Usage.Run.CostUSD != 0 ||
		rep.Usage.Task.CostUSD == nil || *rep.Usage.Task.CostUSD != 0.0125 {
		t.Errorf("usage after the resume = %+v", rep.Usage)
	}
	notes, _ := os.ReadFile(filepath.Join(task.WorktreePath, "notes.txt"))
	if string(notes) != "run 0\nrun 1\n" {
		t.Errorf("the runs did not share the worktree: %q", notes)
	}
	var e struct {
		Task struct{ Status string } `json:"task"`
	}
	f.mustSucceed("end_task", map[string]any{"taskId": c.TaskID}, &e)
	if e.Task.Status != "completed" {
		t.Errorf("ending a waiting task: %s", e.Task.Status)
	}
}
