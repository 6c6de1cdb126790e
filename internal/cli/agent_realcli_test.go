package cli_test

// The agent orchestrator with the real coding-agent CLIs: `sudocode mcp
// agent` runs Claude Code, Codex, Gemini CLI and OpenCode (npm, the
// versions pinned in internal/modelsim) against the model simulator, and
// every scenario is checked through the MCP tools and resources a client
// uses. This is what keeps the adapters in step with the programs they
// drive: a CLI whose flags, output or session handling drift from its
// adapter fails here. The CLIs run in parallel, each with one simulator
// shared by its scenarios.

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/modelsim"
	"github.com/sudocode/sudocode/internal/orchestrator"
	"github.com/sudocode/sudocode/internal/proctest"
	"github.com/sudocode/sudocode/internal/testkit"
)

// realCLI is one agent CLI as create_task names it.
type realCLI struct {
	name  string
	tool  string
	setup func(testing.TB, *modelsim.Server) []string
	// writeTool is the tool its log names for the scripted file write.
	writeTool string
	// shellConfig is the create_task config under which the agent's shell
	// may write to the repository's git directory (a commit).
	shellConfig map[string]any
	// refusal is a script whose tool call the CLI refuses under
	// refusalConfig; "" where the simulator cannot provoke one.
	refusal       string
	refusalConfig map[string]any
	// errorStatus is the model error the failure scenario scripts.
	errorStatus int
}

var realCLIs = []realCLI{
	{name: "claude", tool: "CLAUDECODE", setup: modelsim.SetupClaude, writeTool: "Write",
		// The default, acceptEdits, refuses commands such as git commit
		// when headless (it lets `echo x > file` in the worktree run).
		shellConfig: map[string]any{"permission_mode": "bypassPermissions"}, errorStatus: 400,
		refusal: "@sim shell \"git commit -q --allow-empty -m refused\"\n@sim text \"The command was refused.\"\n"},
	{name: "codex", tool: "CODEX", setup: modelsim.SetupCodex, writeTool: "file_change",
		// workspace-write keeps the worktree's git directory (in the
		// repository's .git) read-only.
		shellConfig: map[string]any{"sandbox": "danger-full-access"}, errorStatus: 400,
		// Codex says that it rejected the patch only on stderr.
		refusal:       "@sim write refused.txt \"refused\\n\"\n@sim text \"The write was refused.\"\n",
		refusalConfig: map[string]any{"sandbox": "read-only"}},
	// Gemini's stricter approval modes do not offer the refused tools to the
	// model at all, so a scripted model cannot call one.
	{name: "gemini", tool: "GEMINI", setup: modelsim.SetupGemini, writeTool: "write_file", errorStatus: 400},
	// A tool its config denies OpenCode does not offer at all, and --auto
	// approves the rest: no refusal to script.
	{name: "opencode", tool: "OPENCODE", setup: modelsim.SetupOpenCode, writeTool: "write", errorStatus: 400},
}

// realCLINamed is the CLI of realCLIs named name.
func realCLINamed(name string) realCLI {
	for _, c := range realCLIs {
		if c.name == name {
			return c
		}
	}
	panic("no real CLI named " + name)
}

func TestAgentRealCLIs(t *testing.T) {
	for _, c := range realCLIs {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			sim := modelsim.Start(t)
			env := c.setup(t, sim)
			t.Cleanup(func() {
				if t.Failed() {
					for _, r := range sim.Requests() {
						t.Logf("%s %s api=%q tools=%d calls=%v\n%.3000s", r.Method, r.Path, r.API, len(r.Tools), r.Calls, r.Body)
					}
				}
			})
			// Each scenario costs the CLI's start-up (seconds of CPU for
			// some): one run checks as much as it can. A model error runs
			// in TestTaskFailureNoteHoldsTheReason, a commit in the box in
			// TestRunReadyRealCLIs.
			shared := startAgentServer(t, realCLIRepo(t), env)
			t.Run("write_restart_resume", func(t *testing.T) { t.Parallel(); realWriteResume(t, c, sim, env) })
			if c.refusal != "" {
				t.Run("refusal", func(t *testing.T) { t.Parallel(); realRefusal(t, c, shared) })
			}
			t.Run("end_hanging", func(t *testing.T) { t.Parallel(); realEndHanging(t, c, sim, shared) })
		})
	}
}

// realCLIRepo is the repository an agent CLI works in: testkit.Repo's
// identity of its own matters, the agents' scratch HOME having no git
// config.
func realCLIRepo(t *testing.T) string { return testkit.Repo(t) }

// writePrompt scripts a write of name and a final answer.
func writePrompt(name, content, answer string) string {
	return fmt.Sprintf("Create %s, then say what you did.\n@sim write %s %q\n@sim text %q\n", name, name, content, answer)
}

// The agent writes a file under the adapter's default mode (for Claude
// Code, acceptEdits in a worktree outside .git: the write it once
// refused), the task waits with a parsed log, report_task gives the
// answer, usage and files; the server is killed as a crash would, and
// started again, update_task continues the same session (the model sees
// the first turn), and end_task leaves the file on the branch.
func realWriteResume(t *testing.T, c realCLI, sim *modelsim.Server, env []string) {
	const answer, again = "I wrote hello.txt with a greeting.", "Before this, I wrote hello.txt."
	repo := realCLIRepo(t)
	a := startAgentServer(t, repo, env)
	id := a.createTask(t, c.tool, writePrompt("hello.txt", "hi from the simulator\n", answer), nil)
	st := a.waitStopped(t, id)
	kinds, logText := a.logKinds(t, id)
	if st.Task.Status != orchestrator.StatusWaiting {
		t.Fatalf("task is %s (error %+v), want waiting; log:\n%s", st.Task.Status, st.Task.Error, logText)
	}
	for _, k := range []string{"message", "tool_call " + c.writeTool, "tool_result", "usage", "completion"} {
		if kinds[k] == 0 {
			t.Errorf("the log has no %s entry:\n%s", k, logText)
		}
	}
	if !regexp.MustCompile(`(?m) tool_call ` + regexp.QuoteMeta(c.writeTool) + `: .*hello\.txt$`).MatchString(logText) {
		t.Errorf("no tool_call %s entry names hello.txt:\n%s", c.writeTool, logText)
	}
	// One entry per message, however many chunks streamed it.
	if n := strings.Count(logText, "message: "+answer); n != 1 {
		t.Errorf("the answer is in %d message entries, want 1:\n%s", n, logText)
	}
	got, err := os.ReadFile(filepath.Join(st.Task.WorktreePath, "hello.txt"))
	if err != nil || string(got) != "hi from the simulator\n" {
		t.Fatalf("hello.txt in the worktree = %q, %v; log:\n%s", got, err, logText)
	}
	rep := a.report(t, id)
	first := rep.Usage.Run
	if !strings.Contains(rep.FinalAnswer, answer) || rep.Outcome != "succeeded" || rep.SessionID == "" {
		t.Errorf("report: final_answer %q outcome %q session %q; want the scripted answer, succeeded, a session", rep.FinalAnswer, rep.Outcome, rep.SessionID)
	}
	if tk := rep.Usage.Run.Tokens; tk == nil || tk.Input == 0 || tk.Output == 0 {
		t.Errorf("report usage of the run = %+v, want input and output tokens", rep.Usage.Run)
	}
	if len(rep.FilesChanged) != 1 || rep.FilesChanged[0] != "hello.txt" {
		t.Errorf("report files_changed = %v, want [hello.txt]", rep.FilesChanged)
	}

	a.kill(t)
	a = startAgentServer(t, repo, env)
	if st := a.task(t, id); st.Task.Status != orchestrator.StatusWaiting || st.Task.SessionID == "" {
		t.Fatalf("after the restart the task is %s with session %q, want waiting with its session", st.Task.Status, st.Task.SessionID)
	}
	a.call(t, "update_task", map[string]any{"taskId": id, "instructions": "What did you do before?\n@sim text \"" + again + "\"\n"}, false, nil)
	st = a.waitStopped(t, id)
	if st.Task.Status != orchestrator.StatusWaiting {
		t.Fatalf("after update_task the task is %s (error %+v), want waiting", st.Task.Status, st.Task.Error)
	}
	rep = a.report(t, id)
	if !strings.Contains(rep.FinalAnswer, again) {
		t.Errorf("resumed run's final_answer = %q, want %q", rep.FinalAnswer, again)
	}
	requireCarried(t, sim, again, "@sim write hello.txt", answer)
	requireRunUsage(t, sim, again, first, rep.Usage)
	requireKeyUnrecorded(t, sim)

	a.call(t, "end_task", map[string]any{"taskId": id, "status": "completed"}, false, nil)
	if got := testkit.Git(t, a.repo, "show", st.Task.Branch+":hello.txt"); got != "hi from the simulator" {
		t.Errorf("git show %s:hello.txt = %q", st.Task.Branch, got)
	}
}

// requireRunUsage checks the usage of a resumed run (whose requests hold
// marker) after a first run that used first: the run's input tokens are
// at most what the simulator counted for the run's own requests (not the
// session's, which CLIs such as Codex report), the task's are both runs'
// added up, and the run's cost, where the CLI reports one, is the run's
// own: per input token, within a factor of two of the first run's.
func requireRunUsage(t *testing.T, sim *modelsim.Server, marker string, first orchestrator.Usage, u orchestrator.ReportUsage) {
	t.Helper()
	own := 0
	for _, r := range sim.ModelRequests() {
		if bytes.Contains(r.Body, []byte(marker)) {
			own += r.InputTokens()
		}
	}
	run, task := u.Run.Tokens, u.Task.Tokens
	if run == nil || task == nil || first.Tokens == nil {
		t.Fatalf("usage after the resume: run %+v task %+v first run %+v, want tokens", u.Run, u.Task, first)
	}
	if run.Input <= 0 || run.Input > int64(own) {
		t.Errorf("the resumed run's input tokens = %d, want 1…%d (what its own requests held)", run.Input, own)
	}
	if task.Input != first.Tokens.Input+run.Input || task.Output != first.Tokens.Output+run.Output {
		t.Errorf("task tokens %+v, want the first run's %+v plus the resumed run's %+v", *task, *first.Tokens, *run)
	}
	if first.CostUSD != nil && *first.CostUSD > 0 {
		perToken := func(cost float64, in int64) float64 { return cost / float64(in) }
		r1 := perToken(*first.CostUSD, first.Tokens.Input)
		if u.Run.CostUSD == nil || perToken(*u.Run.CostUSD, run.Input) < r1/2 || perToken(*u.Run.CostUSD, run.Input) > r1*2 {
			t.Errorf("the resumed run's cost %v for %d input tokens, the first run's %v for %d: want the run's own cost",
				u.Run.CostUSD, run.Input, *first.CostUSD, first.Tokens.Input)
		}
	}
}

// requireKeyUnrecorded fails if the simulator recorded the API key the
// CLI sent, in a header or a path: the requests a failed test logs must
// not show a key, wherever a CLI puts it.
func requireKeyUnrecorded(t *testing.T, sim *modelsim.Server) {
	t.Helper()
	for _, r := range sim.Requests() {
		for k, vs := range r.Header {
			if strings.Contains(strings.Join(vs, " "), modelsim.SimKey) {
				t.Errorf("request %s %s was recorded with the API key in header %s", r.Method, r.Path, k)
			}
		}
		if strings.Contains(r.Path, modelsim.SimKey) {
			t.Errorf("request path %s was recorded with the API key", r.Path)
		}
	}
}

// requireCarried fails unless a model request that holds marker (the
// resumed run's prompt) also holds each of earlier (the first turn).
func requireCarried(t *testing.T, sim *modelsim.Server, marker string, earlier ...string) {
	t.Helper()
	for _, r := range sim.ModelRequests() {
		ok := bytes.Contains(r.Body, []byte(marker))
		for _, e := range earlier {
			ok = ok && bytes.Contains(r.Body, []byte(e))
		}
		if ok {
			return
		}
	}
	t.Errorf("no model request of the resumed run (holding %q) carried the first turn %q", marker, earlier)
}

// end_task on an agent whose model call hangs cancels the task and
// leaves no process of its group behind.
func realEndHanging(t *testing.T, c realCLI, sim *modelsim.Server, a *agentServer) {
	const marker = "Wait for the model forever."
	id := a.createTask(t, c.tool, marker+"\n@sim hang\n", nil)
	if !testkit.Eventually(2*time.Minute, func() bool { return hangingCall(sim, marker) }) {
		t.Fatalf("waited %v for the agent to call the model; log:\n%s", testkit.Scale(2*time.Minute), a.read(t, "task://"+id+"/logs"))
	}
	st := a.task(t, id)
	if st.Task.Status != orchestrator.StatusInProgress || st.Task.PID == 0 {
		t.Fatalf("while the model hangs the task is %s with pid %d, want in_progress with a pid", st.Task.Status, st.Task.PID)
	}
	var ended struct {
		Result struct {
			Task struct {
				Status orchestrator.Status `json:"status"`
			} `json:"task"`
		} `json:"result"`
	}
	a.call(t, "end_task", map[string]any{"taskId": id}, false, &ended)
	if ended.Result.Task.Status != orchestrator.StatusCancelled {
		t.Errorf("end_task left the task %s, want cancelled", ended.Result.Task.Status)
	}
	if live := proctest.GroupMembers(st.Task.PID); len(live) > 0 {
		t.Errorf("processes %v of the agent's group %d outlived end_task", live, st.Task.PID)
	}
}

// hangingCall says whether the agent's main model call (one that offers
// tools, unlike Gemini's routing call) for the prompt marker has arrived.
func hangingCall(sim *modelsim.Server, marker string) bool {
	for _, r := range sim.ModelRequests() {
		if len(r.Tools) > 0 && bytes.Contains(r.Body, []byte(marker)) {
			return true
		}
	}
	return false
}

// A tool call the CLI refuses (Claude Code's default acceptEdits refuses
// git commit when headless; Codex's read-only sandbox a patch) is
// reported as a permission denial, and the call has no effect.
func realRefusal(t *testing.T, c realCLI, a *agentServer) {
	id := a.createTask(t, c.tool, "Try this.\n"+c.refusal, map[string]any{"config": c.refusalConfig})
	st := a.waitStopped(t, id)
	kinds, logText := a.logKinds(t, id)
	rep := a.report(t, id)
	if kinds["permission_denied"] == 0 || len(rep.PermissionDenials) == 0 {
		t.Errorf("task %s: report permission_denials %+v, want the refused call; log:\n%s", st.Task.Status, rep.PermissionDenials, logText)
	}
	if _, err := os.Stat(filepath.Join(st.Task.WorktreePath, "refused.txt")); err == nil || rep.Commits != 0 {
		t.Errorf("the refused call had an effect (refused.txt or %d commits); log:\n%s", rep.Commits, logText)
	}
}
