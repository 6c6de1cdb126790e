package cli_test

// The agent orchestrator as agents run it: `sudocode mcp agent` over stdio.

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/proctest"
	"github.com/sudocode/sudocode/internal/testkit"
)

// connectAgent starts `sudocode mcp agent --project repo`.
func connectAgent(t *testing.T, repo string) (*mcp.ClientSession, *exec.Cmd, *testkit.LockedBuffer) {
	t.Helper()
	return connectAgentWith(t, repo, nil)
}

// connectAgentWith starts `sudocode mcp agent --project repo args…` with
// env added to the test's environment.
func connectAgentWith(t *testing.T, repo string, env []string, args ...string) (*mcp.ClientSession, *exec.Cmd, *testkit.LockedBuffer) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(20*time.Second))
	defer cancel()
	cmd := exec.Command(sudocodeBin, append([]string{"mcp", "agent", "--project", repo}, args...)...)
	cmd.Env = childEnv(t, env...)
	stderr := &testkit.LockedBuffer{}
	cmd.Stderr = stderr
	s, err := mcp.NewClient(&mcp.Implementation{Name: "lead", Version: "0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to sudocode mcp agent: %v\nstderr:\n%s", err, stderr)
	}
	return s, cmd, stderr
}

// The server started by an agent runs a task, and when its client goes
// away it stops the task's whole process group; started again, it still
// lists the task, with its log, as failed because the server stopped.
func TestAgentServerStdio(t *testing.T) {
	repo := testkit.Repo(t)

	s, cmd, stderr := connectAgent(t, repo)
	if got := s.InitializeResult().ServerInfo.Name; got != "sudocode-agent" {
		t.Errorf("server name %q", got)
	}
	res, err := s.CallTool(t.Context(), &mcp.CallToolParams{Name: "create_task", Arguments: map[string]any{
		"tool": "COMMAND", "description": "Run forever",
		"config": map[string]any{"command": []string{"sh", "-c", "echo started; sleep 60 & sleep 60; wait"}},
	}})
	if err != nil || res.IsError {
		t.Fatalf("create_task: %v %+v\nstderr:\n%s", err, res, stderr)
	}
	var created struct {
		Result struct {
			TaskID string `json:"taskId"`
		} `json:"result"`
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &created); err != nil || created.Result.TaskID == "" {
		t.Fatalf("create_task result %s", b)
	}
	id := created.Result.TaskID
	var task struct {
		Task struct {
			PID    int    `json:"pid"`
			Status string `json:"status"`
			Error  *struct {
				Type string `json:"type"`
			} `json:"error"`
		} `json:"task"`
		RecentLog []string `json:"recent_log"`
	}
	readTask := func(s *mcp.ClientSession) {
		t.Helper()
		r, err := s.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "task://" + id})
		if err != nil {
			t.Fatalf("read task://%s: %v", id, err)
		}
		if err := json.Unmarshal([]byte(r.Contents[0].Text), &task); err != nil {
			t.Fatal(err)
		}
	}
	testkit.WaitFor(t, 20*time.Second, "a log line from the agent", func() bool {
		readTask(s)
		return len(task.RecentLog) > 0
	})
	pgid := task.Task.PID
	if pgid == 0 || task.Task.Status != "in_progress" {
		t.Fatalf("running task: %+v", task.Task)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("close: %v\nstderr:\n%s", err, stderr)
	}
	if cmd.ProcessState == nil || !cmd.ProcessState.Success() {
		t.Fatalf("server exit %v\nstderr:\n%s", cmd.ProcessState, stderr)
	}
	if live := proctest.GroupMembers(pgid); len(live) > 0 {
		t.Fatalf("processes %v of the agent's group %d outlived the server", live, pgid)
	}

	s2, _, _ := connectAgent(t, repo)
	defer s2.Close()
	readTask(s2)
	if task.Task.Status != "failed" || task.Task.Error == nil || task.Task.Error.Type != "server_stopped" ||
		len(task.RecentLog) == 0 || !strings.Contains(task.RecentLog[0], "started") {
		t.Fatalf("after a restart: %+v", task)
	}
	if _, err := os.Stat(filepath.Join(repo, ".git", "sudocode", "orchestrator.db")); err != nil {
		t.Errorf("task database not in the git dir: %v", err)
	}
}
