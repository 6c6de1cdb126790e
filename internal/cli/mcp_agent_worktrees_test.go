package cli_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/testkit"
)

// `sudocode mcp agent` puts task worktrees under --worktrees DIR, else
// under SUDOCODE_WORKTREES, never inside the repository.
func TestAgentWorktreesFlagAndEnv(t *testing.T) {
	repo := testkit.Repo(t)
	flagDir, envDir := t.TempDir(), t.TempDir()
	for _, c := range []struct {
		name string
		env  []string
		args []string
		want string
	}{
		{"flag", []string{"SUDOCODE_WORKTREES=" + envDir}, []string{"--worktrees", flagDir}, flagDir},
		{"env", []string{"SUDOCODE_WORKTREES=" + envDir}, nil, envDir},
	} {
		s, _, stderr := connectAgentWith(t, repo, c.env, c.args...)
		res, err := s.CallTool(t.Context(), &mcp.CallToolParams{Name: "create_task", Arguments: map[string]any{
			"tool": "COMMAND", "description": "where", "config": map[string]any{"command": []string{"true"}},
		}})
		if err != nil || res.IsError {
			t.Fatalf("%s: create_task: %v %+v\nstderr:\n%s", c.name, err, res, stderr)
		}
		var created struct {
			Result struct {
				TaskID string `json:"taskId"`
			} `json:"result"`
		}
		b, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(b, &created)
		r, err := s.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "task://" + created.Result.TaskID})
		if err != nil {
			t.Fatal(err)
		}
		var task struct {
			Task struct {
				WorktreePath string `json:"worktree_path"`
			} `json:"task"`
		}
		json.Unmarshal([]byte(r.Contents[0].Text), &task)
		if p := task.Task.WorktreePath; !strings.HasPrefix(p, c.want+string(filepath.Separator)) {
			t.Errorf("%s: worktree %q, want under %s", c.name, p, c.want)
		}
		s.Close()
	}
	if st := testkit.Git(t, repo, "status", "--porcelain", "--ignored"); st != "" {
		t.Errorf("git status shows %s", st)
	}
}
