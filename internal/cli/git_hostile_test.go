package cli_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/testkit"
)

// TestPlantedGitConfigRunsNothing: a client of the coding server writes
// .git/config through apply_patch (the coding tools may write inside
// .git) naming an fsmonitor hook, a hooks directory and clean and smudge
// filters, each of which would write a marker outside the repository.
// sudocode serve is restarted (its worktree pool checks out, refreshes the
// index and reads status) and a task is created through /mcp/agent: no
// marker appears.
func TestPlantedGitConfigRunsNothing(t *testing.T) {
	dir := serveRepo(t)
	markers := t.TempDir()
	hooks := t.TempDir()
	for _, h := range []string{"post-checkout", "reference-transaction", "post-index-change"} {
		body := "#!/bin/sh\ntouch '" + filepath.Join(markers, "hook-"+h) + "'\n"
		if err := os.WriteFile(filepath.Join(hooks, h), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env := childEnv(t)
	serve := func() (*serveProc, map[string]string) {
		p, doc := startServe(t, env, true, "--addr", "127.0.0.1:0", "--dir", dir, "--json")
		var info struct {
			MCP map[string]string `json:"mcp"`
		}
		if err := json.Unmarshal([]byte(doc), &info); err != nil {
			t.Fatalf("%v: %s", err, doc)
		}
		return p, info.MCP
	}
	call := func(s *mcp.ClientSession, tool string, args map[string]any) map[string]any {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(30*time.Second))
		defer cancel()
		res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", tool, err, res)
		}
		var out map[string]any
		b, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(b, &out)
		return out
	}

	p, urls := serve()
	coding := connectPlain(t, urls["coding"])
	mark := func(name string) string { return "touch '" + filepath.Join(markers, name) + "'" }
	cfg, err := os.ReadFile(filepath.Join(dir, ".git", "config"))
	if err != nil {
		t.Fatal(err)
	}
	cfg = append(cfg, []byte("[core]\n\tfsmonitor = "+mark("fsmonitor")+"; false\n\thooksPath = "+hooks+"\n"+
		"[filter \"evil\"]\n\tclean = "+mark("clean")+"; cat\n\tsmudge = "+mark("smudge")+"; cat\n")...)
	// apply_patch refuses .git/ (a test of its own); the configuration
	// is planted as a pulled repository or another process would.
	res, err := coding.CallTool(context.Background(), &mcp.CallToolParams{Name: "apply_patch", Arguments: map[string]any{
		"patch": "*** Begin Patch\n*** Add File: .git/info/attributes\n+* filter=evil\n*** End Patch\n"}})
	if err != nil || !res.IsError {
		t.Fatalf("apply_patch wrote into .git: %v %+v", err, res)
	}
	os.MkdirAll(filepath.Join(dir, ".git", "info"), 0o755)
	if err := os.WriteFile(filepath.Join(dir, ".git", "info", "attributes"), []byte("* filter=evil\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".git", "config"), cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	coding.Close()
	// The work tree's file differs from the index only in its time, so
	// git must read it (through the clean filter) to know.
	now := time.Now().Add(2 * time.Second)
	os.Chtimes(filepath.Join(dir, "README.md"), now, now)

	testkit.Stop(t, p.cmd.Process, p.exited, 30*time.Second)
	_, urls = serve()
	agent := connectPlain(t, urls["agent"])
	created := call(agent, "create_task", map[string]any{"tool": "COMMAND", "description": "Nothing",
		"config": map[string]any{"command": []string{"true"}}})
	id, _ := created["result"].(map[string]any)["taskId"].(string)
	if id == "" {
		t.Fatalf("create_task: %v", created)
	}
	testkit.WaitFor(t, 30*time.Second, "task "+id+" to finish", func() bool {
		r, err := agent.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "task://" + id})
		if err != nil {
			t.Fatal(err)
		}
		var task struct {
			Task struct{ Status string } `json:"task"`
		}
		json.Unmarshal([]byte(r.Contents[0].Text), &task)
		return task.Task.Status != "running" && task.Task.Status != "pending" && task.Task.Status != ""
	})
	ents, _ := os.ReadDir(markers)
	var ran []string
	for _, e := range ents {
		ran = append(ran, e.Name())
	}
	if len(ran) > 0 {
		t.Fatalf("the planted git configuration ran as the server's user: %v", ran)
	}
}

// connectPlain is an MCP client session over Streamable HTTP.
func connectPlain(t *testing.T, url string) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(20*time.Second))
	defer cancel()
	s, err := mcp.NewClient(&mcp.Implementation{Name: "cli-test", Version: "0"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1, HTTPClient: &http.Client{Transport: servedToken{}}}, nil)
	if err != nil {
		t.Fatalf("connect to %s: %v", url, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
