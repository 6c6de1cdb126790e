package mcpagent_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/goldentest"
	"github.com/sudocode/sudocode/internal/orchestrator"
	"github.com/sudocode/sudocode/internal/proctest"
	"github.com/sudocode/sudocode/internal/testkit"
)

// TestToolsGolden pins tools/list, the resources and the resource
// templates: a change of a name, description, input or output schema, or
// annotation is a visible diff of testdata/tools.golden.json. Refresh it
// with: go test ./internal/mcpagent -run TestToolsGolden -update
func TestToolsGolden(t *testing.T) {
	f := newFixture(t)
	var names []string
	for _, tool := range goldentest.Server(t, "testdata/tools.golden.json", f.cs).Tools {
		names = append(names, tool.Name)
		if tool.Title == "" || tool.Annotations == nil || tool.Annotations.OpenWorldHint == nil {
			t.Errorf("%s: title and explicit annotations required", tool.Name)
		}
	}
	if want := "[create_task end_task gc_tasks list_tasks merge_task report_task run_ready update_task]"; fmt.Sprint(names) != want {
		t.Fatalf("tools = %v, want %s", names, want)
	}
}

type report struct {
	ID          string `json:"id"`
	Status      string `json:"status"`
	Outcome     string `json:"outcome"`
	FinalAnswer string `json:"final_answer"`
	Usage       struct {
		Run, Task struct {
			CostUSD *float64 `json:"cost_usd"`
		}
	} `json:"usage"`
	FilesChanged []string `json:"files_changed"`
	Commits      int      `json:"commits"`
	DurationMS   int64    `json:"duration_ms"`
	StartedAt    *string  `json:"started_at"`
	FinishedAt   *string  `json:"finished_at"`
	DiffStat     struct {
		Files      int    `json:"files"`
		Insertions int    `json:"insertions"`
		Deletions  int    `json:"deletions"`
		Text       string `json:"text"`
	} `json:"diff_stat"`
}

func (f *fixture) report(id string) report {
	f.t.Helper()
	var r report
	f.mustSucceed("report_task", map[string]any{"taskId": id}, &r)
	return r
}

// A COMMAND task edits a file and commits on its own branch; the user's
// checkout, uncommitted work included, is untouched.
func TestCommandTaskEditsAndCommits(t *testing.T) {
	f := newFixture(t)
	writeFile(t, filepath.Join(f.repo, "mine.txt"), "the user's uncommitted work\n")
	head := testkit.Git(t, f.repo, "rev-parse", "HEAD")
	c := f.command("Add a greeting", `printf 'hi\n' > greeting.txt && git add greeting.txt && git commit -qm "add greeting" && echo committed`, nil)
	if c.TaskID == "" || c.Task.Status != "in_progress" || !strings.HasPrefix(c.Task.Branch, "sudocode/add-a-greeting-") {
		t.Fatalf("created %+v", c)
	}
	task := f.wait(c.TaskID)
	if task.Status != orchestrator.StatusCompleted {
		t.Fatalf("status %s: %+v", task.Status, task.Error)
	}
	if got := testkit.Git(t, f.repo, "log", "--format=%s", head+".."+c.Task.Branch); got != "add greeting" {
		t.Fatalf("branch log = %q", got)
	}
	if got := testkit.Git(t, f.repo, "show", c.Task.Branch+":greeting.txt"); got != "hi" {
		t.Fatalf("greeting.txt on the branch = %q", got)
	}
	if _, err := os.Stat(filepath.Join(f.repo, "greeting.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the task wrote into the user's checkout: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(f.repo, "mine.txt")); string(b) != "the user's uncommitted work\n" {
		t.Fatalf("user's file = %q", b)
	}
	if got := testkit.Git(t, f.repo, "rev-parse", "HEAD"); got != head {
		t.Fatalf("user's HEAD moved to %s", got)
	}
	r := f.report(c.TaskID)
	if r.Status != "completed" || r.Outcome != "succeeded" || r.Commits != 1 || fmt.Sprint(r.FilesChanged) != "[greeting.txt]" ||
		r.DiffStat.Files != 1 || r.DiffStat.Insertions != 1 || !strings.Contains(r.DiffStat.Text, "greeting.txt") ||
		r.StartedAt == nil || r.FinishedAt == nil {
		t.Fatalf("report = %+v", r)
	}
}

// Instructions of 100 KB reach a COMMAND intact on stdin and in
// SUDOCODE_TASK_INSTRUCTIONS.
func TestLargeInstructionsIntact(t *testing.T) {
	f := newFixture(t)
	var b strings.Builder
	for i := 0; b.Len() < 100<<10; i++ {
		fmt.Fprintf(&b, "step %d: don't break \"quotes\", $VARS, `ticks` or ünïcödé ✓\n", i)
	}
	instr := b.String()
	sum := sha256.Sum256([]byte(instr))
	c := f.command("Big prompt", `sha256sum | cut -d' ' -f1 > stdin.sum; printf '%s' "$SUDOCODE_TASK_INSTRUCTIONS" | sha256sum | cut -d' ' -f1 > env.sum`,
		map[string]any{"instructions": instr})
	task := f.wait(c.TaskID)
	for _, name := range []string{"stdin.sum", "env.sum"} {
		got, err := os.ReadFile(filepath.Join(task.WorktreePath, name))
		if err != nil {
			t.Fatal(err)
		}
		if strings.TrimSpace(string(got)) != hex.EncodeToString(sum[:]) {
			t.Errorf("%s: the agent saw different instructions (%d bytes sent)", name, len(instr))
		}
	}
}

// Bad input is a clear error in the response shape and leaves nothing behind.
func TestBadInput(t *testing.T) {
	f := newFixture(t)
	testkit.Git(t, f.repo, "branch", "taken")
	worktrees := branchWorktrees(t, f.repo)
	branches := testkit.Git(t, f.repo, "branch", "--list")
	cmd := map[string]any{"command": []string{"true"}}
	for _, tc := range []struct {
		tool, errType, want string
		args                map[string]any
	}{
		{"report_task", "not_found", "nope", map[string]any{"taskId": "nope"}},
		{"update_task", "not_found", "nope", map[string]any{"taskId": "nope", "log": "x"}},
		{"end_task", "not_found", "nope", map[string]any{"taskId": "nope"}},
		{"create_task", "validation_error", "CLAUDECODE, CODEX, COMMAND, GEMINI, OPENCODE", map[string]any{"tool": "COPILOT", "description": "x"}},
		{"create_task", "validation_error", "description is required", map[string]any{"tool": "COMMAND", "config": cmd}},
		{"create_task", "conflict", "taken", map[string]any{"tool": "COMMAND", "description": "x", "branch": "taken", "config": cmd}},
		{"create_task", "conflict", "main", map[string]any{"tool": "COMMAND", "description": "x", "branch": "main", "config": cmd}},
		{"create_task", "validation_error", "bad..name", map[string]any{"tool": "COMMAND", "description": "x", "branch": "bad..name", "config": cmd}},
		{"create_task", "unavailable", "config.command", map[string]any{"tool": "COMMAND", "description": "x"}},
		{"update_task", "validation_error", "nothing to update", map[string]any{"taskId": "nope"}},
		{"end_task", "validation_error", "completed, failed, cancelled", map[string]any{"taskId": "nope", "status": "done"}},
	} {
		r := f.call(tc.tool, tc.args)
		if r.Status != "error" || r.Error.Type != tc.errType || !strings.Contains(r.Message, tc.want) {
			t.Errorf("%s %v: %s %+v %q, want %s mentioning %q", tc.tool, tc.args, r.Status, r.Error, r.Message, tc.errType, tc.want)
		}
	}
	if got := branchWorktrees(t, f.repo); got != worktrees {
		t.Errorf("worktrees changed:\n%s", got)
	}
	if got := testkit.Git(t, f.repo, "branch", "--list"); got != branches {
		t.Errorf("branches changed:\n%s", got)
	}
	// Arguments that do not fit the schema are protocol errors.
	_, err := f.cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "report_task", Arguments: map[string]any{"taskId": "x", "verbose": true}})
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidParams || rpcErr.Message != "unknown parameter 'verbose'; expected: taskId" {
		t.Errorf("unknown parameter: %v", err)
	}
	// A required parameter sent empty is missing, as absent is.
	_, err = f.cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "report_task", Arguments: map[string]any{"taskId": ""}})
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidParams || !strings.HasPrefix(rpcErr.Message, "missing required parameter 'taskId'") {
		t.Errorf("an empty taskId: %v", err)
	}
}

func TestNotAGitRepository(t *testing.T) {
	dir := t.TempDir()
	f := newFixtureAt(t, dir)
	r := f.call("create_task", map[string]any{"tool": "COMMAND", "description": "x", "config": map[string]any{"command": []string{"true"}}})
	if r.Status != "error" || !strings.Contains(r.Message, "not a git repository") {
		t.Fatalf("got %s %q", r.Status, r.Message)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("left %d entries in the directory", len(entries))
	}
}

// A missing agent CLI is an error at create_task naming what to install.
func TestMissingCLI(t *testing.T) {
	f := newFixture(t)
	bin := t.TempDir()
	gitPath, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(gitPath, filepath.Join(bin, "git")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	for tool, pkg := range map[string]string{
		"CLAUDECODE": "@anthropic-ai/claude-code", "GEMINI": "@google/gemini-cli", "CODEX": "@openai/codex", "OPENCODE": "opencode-ai",
	} {
		r := f.call("create_task", map[string]any{"tool": tool, "description": "x"})
		if r.Status != "error" || r.Error.Type != "unavailable" || !strings.Contains(r.Message, "npm install -g "+pkg) {
			t.Errorf("%s: %s %q", tool, r.Status, r.Message)
		}
	}
	if got := branchWorktrees(t, f.repo); got != "refs/heads/main" {
		t.Errorf("worktrees left: %s", got)
	}
}

// end_task kills the agent's whole process group.
func TestEndTaskKillsProcessGroup(t *testing.T) {
	f := newFixture(t)
	c := f.command("Long job", `sleep 60 & sleep 60 & echo started; wait`, nil)
	f.until("the agent to start", func() bool {
		evs, _ := f.orch.Logs(t.Context(), c.TaskID, 0, 0)
		return len(evs) > 0
	})
	task, err := f.orch.Get(t.Context(), c.TaskID)
	if err != nil || task.PID == 0 {
		t.Fatalf("task %+v: %v", task, err)
	}
	var e struct {
		Task    struct{ Status string } `json:"task"`
		Removal struct {
			BranchDeleted bool `json:"branch_deleted"`
		} `json:"removal"`
	}
	f.mustSucceed("end_task", map[string]any{"taskId": c.TaskID, "keepBranch": false}, &e)
	if e.Task.Status != "cancelled" || !e.Removal.BranchDeleted {
		t.Fatalf("end = %+v", e)
	}
	if live := proctest.GroupMembers(task.PID); len(live) > 0 {
		t.Fatalf("processes %v of group %d still alive", live, task.PID)
	}
	if _, err := os.Stat(task.WorktreePath); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("worktree left: %v", err)
	}
	// Ending again changes nothing.
	f.mustSucceed("end_task", map[string]any{"taskId": c.TaskID}, nil)
}

// end_task keeps the branch by default, with the agent's uncommitted work
// saved on it; keepBranch false deletes it.
func TestEndTaskKeepsWork(t *testing.T) {
	f := newFixture(t)
	c := f.command("Draft", `echo draft > draft.txt`, nil)
	f.wait(c.TaskID)
	var e struct {
		Task struct {
			Status string `json:"status"`
		} `json:"task"`
		Removal struct {
			SavedCommit   string `json:"saved_commit"`
			BranchDeleted bool   `json:"branch_deleted"`
		} `json:"removal"`
	}
	r := f.mustSucceed("end_task", map[string]any{"taskId": c.TaskID, "result": map[string]any{"note": "kept"}}, &e)
	if e.Task.Status != "completed" || e.Removal.SavedCommit == "" || e.Removal.BranchDeleted {
		t.Fatalf("end = %+v (%s)", e, r.Message)
	}
	if got := testkit.Git(t, f.repo, "show", c.Task.Branch+":draft.txt"); got != "draft" {
		t.Fatalf("draft.txt on the branch = %q", got)
	}
	text, _ := f.read("task://" + c.TaskID + "/result")
	if !strings.Contains(text, `"note": "kept"`) {
		t.Fatalf("result = %s", text)
	}
}

// The server's shutdown stops every agent: no process of its group is left
// and the task says why it failed.
func TestShutdownKillsAgents(t *testing.T) {
	f := newFixture(t)
	c := f.command("Forever", `sleep 60 & echo started; wait`, nil)
	f.until("the agent to start", func() bool {
		evs, _ := f.orch.Logs(t.Context(), c.TaskID, 0, 0)
		return len(evs) > 0
	})
	task, _ := f.orch.Get(t.Context(), c.TaskID)
	f.orch.Close()
	if live := proctest.GroupMembers(task.PID); len(live) > 0 {
		t.Fatalf("processes %v of group %d still alive", live, task.PID)
	}
	task, _ = f.orch.Get(t.Context(), c.TaskID)
	if task.Status != orchestrator.StatusFailed || task.Error == nil || task.Error.Type != orchestrator.ErrTypeServerStopped {
		t.Fatalf("task after shutdown: %s %+v", task.Status, task.Error)
	}
}

// Ten tasks at once on one repository, each on its own worktree and
// branch, none interfering.
func TestTenTasksAtOnce(t *testing.T) {
	f := newFixture(t)
	ids := make([]created, 10)
	var wg sync.WaitGroup
	for i := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			script := fmt.Sprintf(`echo %d > task%d.txt && git add . && git commit -qm "task %d"`, i, i, i)
			res, err := f.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "create_task", Arguments: map[string]any{
				"tool": "COMMAND", "description": fmt.Sprintf("task %d", i), "config": map[string]any{"command": []string{"sh", "-c", script}},
			}})
			if err != nil || res.IsError {
				t.Errorf("task %d: %v %+v", i, err, res)
				return
			}
			b, _ := json.Marshal(res.StructuredContent)
			var r struct{ Result created }
			_ = json.Unmarshal(b, &r)
			ids[i] = r.Result
		}()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	head := testkit.Git(t, f.repo, "rev-parse", "HEAD")
	for i, c := range ids {
		if task := f.wait(c.TaskID); task.Status != orchestrator.StatusCompleted {
			t.Fatalf("task %d: %s %+v", i, task.Status, task.Error)
		}
		files := testkit.Git(t, f.repo, "diff", "--name-only", head+".."+c.Task.Branch)
		if files != fmt.Sprintf("task%d.txt", i) {
			t.Errorf("branch of task %d changed %q", i, files)
		}
	}
}

// branchWorktrees lists the branches checked out in worktrees; the
// detached worktree the orchestrator keeps warm for the next task is not
// a task's.
func branchWorktrees(t *testing.T, repo string) string {
	t.Helper()
	var branches []string
	for _, line := range strings.Split(testkit.Git(t, repo, "worktree", "list", "--porcelain"), "\n") {
		if b, ok := strings.CutPrefix(line, "branch "); ok {
			branches = append(branches, b)
		}
	}
	return strings.Join(branches, " ")
}

// gc_tasks removes a finished task's clean worktree and reports one with
// uncommitted work, which it leaves.
func TestGCTasksTool(t *testing.T) {
	f := newFixture(t)
	clean := f.command("Clean", `true`, nil)
	dirty := f.command("Dirty", `echo x > x.txt`, nil)
	f.wait(clean.TaskID)
	d := f.wait(dirty.TaskID)
	var res struct {
		Removed []string `json:"removed"`
		Kept    []struct {
			TaskID string `json:"task_id"`
		} `json:"kept"`
	}
	r := f.mustSucceed("gc_tasks", map[string]any{}, &res)
	if len(res.Removed) != 1 || res.Removed[0] != clean.TaskID || len(res.Kept) != 1 || res.Kept[0].TaskID != dirty.TaskID {
		t.Fatalf("gc_tasks = %+v", res)
	}
	// The clean task's branch held no commit of its own: it went too.
	if want := "Removed 1 worktree and 1 branch; kept 1 with uncommitted work"; r.Message != want {
		t.Errorf("gc_tasks says %q, want %q", r.Message, want)
	}
	if _, err := os.Stat(d.WorktreePath); err != nil {
		t.Fatalf("dirty worktree removed: %v", err)
	}
}
