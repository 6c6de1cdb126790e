package cli_test

// The client side of the real-CLI tests: a `sudocode mcp agent` process
// whose environment is a modelsim set-up (which is what its agents
// inherit), and the calls and reads those tests make.

import (
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/orchestrator"
	"github.com/sudocode/sudocode/internal/testkit"
)

// agentServer is one running `sudocode mcp agent` process.
type agentServer struct {
	repo   string
	s      *mcp.ClientSession
	cmd    *exec.Cmd
	stderr *testkit.LockedBuffer
}

// startAgentServer starts `sudocode mcp agent --project repo` with env as
// its whole environment (less the settings of the binaries themselves),
// so that its agents see the simulator and nothing of the test's own.
func startAgentServer(t *testing.T, repo string, env []string) *agentServer {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(30*time.Second))
	defer cancel()
	cmd := exec.Command(sudocodeBin, "mcp", "agent", "--project", repo)
	for _, kv := range env {
		if !strings.HasPrefix(kv, "SUDOCODE_") && !strings.HasPrefix(kv, "VALKEY_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	a := &agentServer{repo: repo, cmd: cmd, stderr: &testkit.LockedBuffer{}}
	cmd.Stderr = a.stderr
	s, err := mcp.NewClient(&mcp.Implementation{Name: "realcli-test", Version: "0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to sudocode mcp agent: %v\nstderr:\n%s", err, a.stderr)
	}
	a.s = s
	t.Cleanup(func() { _ = a.s.Close() })
	return a
}

// kill ends the server with SIGKILL, as a crash would: no clean-up runs.
func (a *agentServer) kill(t *testing.T) {
	t.Helper()
	if err := a.cmd.Process.Kill(); err != nil {
		t.Fatalf("kill the server: %v", err)
	}
	_ = a.s.Close()
}

// call calls tool and decodes its structured result into out (if not
// nil); wantErr says whether the call must be an error result.
func (a *agentServer) call(t *testing.T, tool string, args map[string]any, wantErr bool, out any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(time.Minute))
	defer cancel()
	res, err := a.s.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: %v\nserver stderr:\n%s", tool, args, err, a.stderr)
	}
	b, _ := json.Marshal(res.StructuredContent)
	if res.IsError != wantErr {
		t.Fatalf("%s %v: isError=%v, want %v: %s %s", tool, args, res.IsError, wantErr, b, contentText(res))
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s result %s: %v", tool, b, err)
		}
	}
}

func contentText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// createTask starts tool on instructions and returns the task's id;
// extra adds arguments (config, branch).
func (a *agentServer) createTask(t *testing.T, tool, instructions string, extra map[string]any) string {
	t.Helper()
	args := map[string]any{"tool": tool, "description": "real CLI test", "instructions": instructions}
	for k, v := range extra {
		if m, ok := v.(map[string]any); !ok || m != nil { // a nil config is no config
			args[k] = v
		}
	}
	var created struct {
		Result struct {
			TaskID string `json:"taskId"`
		} `json:"result"`
	}
	a.call(t, "create_task", args, false, &created)
	if created.Result.TaskID == "" {
		t.Fatal("create_task returned no taskId")
	}
	return created.Result.TaskID
}

// taskState is what task://{id} says.
type taskState struct {
	Task      orchestrator.Task   `json:"task"`
	Report    orchestrator.Report `json:"report"`
	RecentLog []string            `json:"recent_log"`
}

func (a *agentServer) read(t *testing.T, uri string) string {
	t.Helper()
	r, err := a.s.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: uri})
	if err != nil || len(r.Contents) == 0 {
		t.Fatalf("read %s: %v\nserver stderr:\n%s", uri, err, a.stderr)
	}
	return r.Contents[0].Text
}

func (a *agentServer) task(t *testing.T, id string) taskState {
	t.Helper()
	var st taskState
	if err := json.Unmarshal([]byte(a.read(t, "task://"+id)), &st); err != nil {
		t.Fatalf("task://%s: %v", id, err)
	}
	return st
}

// waitStopped waits until task id's agent is no longer running and
// returns its state; a run longer than three minutes (scaled by
// SUDOCODE_TEST_SLOW) fails the test.
func (a *agentServer) waitStopped(t *testing.T, id string) taskState {
	t.Helper()
	var st taskState
	if !testkit.Eventually(3*time.Minute, func() bool {
		st = a.task(t, id)
		return st.Task.Status != orchestrator.StatusPending && st.Task.Status != orchestrator.StatusInProgress
	}) {
		t.Fatalf("waited %v for task %s to stop: still %s; log:\n%s", testkit.Scale(3*time.Minute), id, st.Task.Status, a.read(t, "task://"+id+"/logs"))
	}
	return st
}

// report is report_task's result.
func (a *agentServer) report(t *testing.T, id string) orchestrator.Report {
	t.Helper()
	var rep struct {
		Result orchestrator.Report `json:"result"`
	}
	a.call(t, "report_task", map[string]any{"taskId": id}, false, &rep)
	return rep.Result
}

// logKinds counts the entries of task://{id}/logs by kind, and by
// "kind tool" for entries that name a tool.
func (a *agentServer) logKinds(t *testing.T, id string) (map[string]int, string) {
	t.Helper()
	text := a.read(t, "task://"+id+"/logs")
	kinds := map[string]int{}
	for _, line := range strings.Split(text, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		// "SEQ TIME KIND[ TOOL][: TEXT]"
		f := strings.SplitN(line, " ", 3)
		if len(f) < 3 {
			continue
		}
		head, _, _ := strings.Cut(f[2], ":")
		kind, tool, _ := strings.Cut(head, " ")
		kinds[kind]++
		if tool != "" {
			kinds[kind+" "+tool]++
		}
	}
	return kinds, text
}
