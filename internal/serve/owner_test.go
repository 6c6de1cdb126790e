package serve_test

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/mcpx"
	"github.com/sudocode/sudocode/internal/serve"
	"github.com/sudocode/sudocode/internal/testkit"
)

const (
	carolToken = "carol-0123456789abcdef0123456789"
	adminToken = "root-0123456789abcdef0123456789ab"
	// secretPlan is in alice's instructions: only she and an admin read it.
	secretPlan = "rotate-the-keys-of-project-falcon"
	// aliceOutput is what alice's command prints, into its log.
	aliceOutput = "alice-output-7f3a"
)

// owners serves a project for alice and bob (both may run commands), carol
// (who may not) and root (an admin).
func owners(t *testing.T) (base string, srv *serve.Server) {
	t.Helper()
	tokens := filepath.Join(t.TempDir(), "tokens")
	file := "alice " + aliceToken + " command\nbob " + bobToken + " command\ncarol " + carolToken + "\nroot " + adminToken + " admin\n"
	if err := os.WriteFile(tokens, []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	a, err := mcpx.NewAuth("", tokens, nil)
	if err != nil {
		t.Fatal(err)
	}
	ts, srv := start(t, project(t), serve.Options{Actor: "local-user", Auth: a})
	if srv.Tasks == nil {
		t.Fatalf("no orchestrator: %s", srv.TasksUnavailable)
	}
	return ts.URL, srv
}

// call calls a tool and returns its result, failing the test on a
// protocol error.
func call(t *testing.T, s *mcp.ClientSession, tool string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := s.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return res
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// aliceTask starts a command of alice's that prints aliceOutput and runs
// until it is ended, and waits for its line in the log.
func aliceTask(t *testing.T, base string, srv *serve.Server) string {
	t.Helper()
	var created struct {
		Result struct {
			TaskID string `json:"taskId"`
		} `json:"result"`
	}
	structured(t, as(t, base+serve.PathAgent, aliceToken), "create_task", map[string]any{
		"tool": "COMMAND", "description": "Rotate keys", "instructions": secretPlan,
		"config": map[string]any{"command": []string{"sh", "-c", "echo " + aliceOutput + "; exec sleep 600"}},
	}, &created)
	id := created.Result.TaskID
	testkit.WaitFor(t, 20*time.Second, "alice's command to print its line", func() bool {
		logs, err := srv.Tasks.Logs(t.Context(), id, 0, 0)
		if err != nil {
			return false
		}
		b, _ := json.Marshal(logs)
		return strings.Contains(string(b), aliceOutput)
	})
	return id
}

// Another client cannot read a task's instructions or log, nor change,
// end or merge it; an admin can.
func TestTaskBelongsToItsCreator(t *testing.T) {
	base, srv := owners(t)
	id := aliceTask(t, base, srv)
	bob := as(t, base+serve.PathAgent, bobToken)
	refusal := "task " + id + " belongs to client alice"

	for _, uri := range []string{"task://" + id, "task://" + id + "/logs", "task://" + id + "/result"} {
		res, err := bob.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: uri})
		if err == nil {
			t.Errorf("bob read %s: %s", uri, res.Contents[0].Text)
		} else if !strings.Contains(err.Error(), refusal) {
			t.Errorf("bob reading %s: %v, want %q", uri, err, refusal)
		}
	}
	for _, uri := range []string{"log://all/today", "task://list"} {
		res, err := bob.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: uri})
		if err != nil {
			t.Fatalf("bob reading %s: %v", uri, err)
		}
		if got := res.Contents[0].Text; strings.Contains(got, secretPlan) || strings.Contains(got, aliceOutput) {
			t.Errorf("%s shows bob alice's task:\n%s", uri, got)
		}
	}
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"report_task", map[string]any{"taskId": id}},
		{"update_task", map[string]any{"taskId": id, "log": "bob was here"}},
		{"update_task", map[string]any{"taskId": id, "status": "failed"}},
		{"merge_task", map[string]any{"taskId": id}},
		{"end_task", map[string]any{"taskId": id, "keepBranch": false}},
	} {
		res := call(t, bob, c.tool, c.args)
		if !res.IsError || !strings.Contains(text(res), refusal) {
			t.Errorf("bob's %s %v: %s, want refused with %q", c.tool, c.args, text(res), refusal)
		}
	}
	// The dashboard of the same server answers bob alike.
	for _, r := range []struct{ method, path string }{{"GET", "/api/tasks/" + id}, {"POST", "/api/tasks/" + id + "/stop"}} {
		req, _ := http.NewRequest(r.method, base+r.path, strings.NewReader("{}"))
		req.Header.Set("Authorization", "Bearer "+bobToken)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK || !strings.Contains(string(body), refusal) {
			t.Errorf("bob's %s %s on the dashboard: %d %s, want refused with %q", r.method, r.path, resp.StatusCode, body, refusal)
		}
	}
	if task, err := srv.Tasks.Get(t.Context(), id); err != nil || !task.Running() {
		t.Fatalf("alice's task after bob's calls: %+v, %v; want it still running", task, err)
	}
	var page struct {
		Result struct {
			Tasks []map[string]any `json:"tasks"`
		} `json:"result"`
	}
	structured(t, bob, "list_tasks", nil, &page)
	if b, _ := json.Marshal(page); strings.Contains(string(b), secretPlan) {
		t.Errorf("list_tasks shows bob alice's instructions: %s", b)
	}

	root := as(t, base+serve.PathAgent, adminToken)
	res, err := root.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "task://" + id})
	if err != nil || !strings.Contains(res.Contents[0].Text, secretPlan) {
		t.Fatalf("the admin reading task://%s: %v", id, err)
	}
	if res := call(t, root, "end_task", map[string]any{"taskId": id, "keepBranch": false}); res.IsError {
		t.Fatalf("the admin's end_task: %s", text(res))
	}
}

// A client whose token has no command grant cannot start a COMMAND task.
func TestCommandTaskNeedsTheGrant(t *testing.T) {
	base, srv := owners(t)
	carol := as(t, base+serve.PathAgent, carolToken)
	res := call(t, carol, "create_task", map[string]any{"tool": "COMMAND", "description": "Read a key",
		"config": map[string]any{"command": []string{"cat", "/etc/hostname"}}})
	if !res.IsError || !strings.Contains(text(res), "command grant") {
		t.Errorf("carol's COMMAND task: %s, want refused naming the command grant", text(res))
	}
	if tasks, _ := srv.Tasks.List(t.Context()); len(tasks) != 0 {
		t.Errorf("a refused create_task left %d tasks", len(tasks))
	}
	res = call(t, carol, "run_ready", map[string]any{"tool": "COMMAND", "config": map[string]any{"command": []string{"true"}}})
	if !res.IsError || !strings.Contains(text(res), "command grant") {
		t.Errorf("carol's run_ready with COMMAND: %s, want refused naming the command grant", text(res))
	}
}

// gc_tasks collects the finished tasks of its caller only: another
// client's worktree stays for its owner to continue or end.
func TestGCCollectsOnlyTheCallersTasks(t *testing.T) {
	base, srv := owners(t)
	var created struct {
		Result struct {
			TaskID string `json:"taskId"`
		} `json:"result"`
	}
	structured(t, as(t, base+serve.PathAgent, aliceToken), "create_task", map[string]any{
		"tool": "COMMAND", "description": "Done at once", "config": map[string]any{"command": []string{"true"}},
	}, &created)
	id := created.Result.TaskID
	testkit.WaitFor(t, 20*time.Second, "alice's task to complete", func() bool {
		task, err := srv.Tasks.Get(t.Context(), id)
		return err == nil && task.Status == "completed"
	})
	var gc struct {
		Result struct {
			Removed []string `json:"removed"`
		} `json:"result"`
	}
	structured(t, as(t, base+serve.PathAgent, bobToken), "gc_tasks", nil, &gc)
	if task, err := srv.Tasks.Get(t.Context(), id); err != nil || task.WorktreePath == "" || len(gc.Result.Removed) != 0 {
		t.Errorf("bob's gc_tasks removed %v; alice's task %+v, %v", gc.Result.Removed, task, err)
	}
	structured(t, as(t, base+serve.PathAgent, aliceToken), "gc_tasks", nil, &gc)
	if len(gc.Result.Removed) != 1 || gc.Result.Removed[0] != id {
		t.Errorf("alice's gc_tasks removed %v, want her task %s", gc.Result.Removed, id)
	}
}

// With one token and no token file there is one client, the machine's
// user: it runs commands without a grant, and whoever holds the token may
// read and end every task.
func TestSingleTokenServerHasOneClient(t *testing.T) {
	const token = "single-0123456789abcdef0123456789"
	ts, srv := start(t, project(t), serve.Options{Token: token, Actor: "local-user"})
	if srv.Tasks == nil {
		t.Fatalf("no orchestrator: %s", srv.TasksUnavailable)
	}
	var created struct {
		Result struct {
			TaskID string `json:"taskId"`
		} `json:"result"`
	}
	structured(t, as(t, ts.URL+serve.PathAgent, token), "create_task", map[string]any{
		"tool": "COMMAND", "description": "Wait", "instructions": secretPlan,
		"config": map[string]any{"command": []string{"sleep", "600"}},
	}, &created)
	other := as(t, ts.URL+serve.PathAgent, token)
	res, err := other.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "task://" + created.Result.TaskID})
	if err != nil || !strings.Contains(res.Contents[0].Text, secretPlan) {
		t.Errorf("another session with the token reading the task: %v", err)
	}
	if res := call(t, other, "end_task", map[string]any{"taskId": created.Result.TaskID, "keepBranch": false}); res.IsError {
		t.Errorf("another session with the token ending the task: %s", text(res))
	}
}
