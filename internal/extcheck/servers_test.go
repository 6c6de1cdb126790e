package extcheck

import (
	"path/filepath"
	"testing"

	"github.com/sudocode/sudocode/internal/testkit"
)

// serverCase is one of the workbench's MCP servers as the checks run it.
type serverCase struct {
	name string
	// tools are tool names tools/list must include.
	tools []string
	// prepare makes the directory the server works on (a project, a store,
	// a workspace, a repository).
	prepare func(t *testing.T) string
	// stdio and http are sudocode's arguments to serve dir on stdio, and
	// on Streamable HTTP at a free loopback port (logging its url=).
	stdio, http func(dir string) []string
	// exercise calls the server's tools through c and checks the results.
	exercise func(t *testing.T, c *inspector, dir string)
}

// servers are every server of the workbench.
var servers = []serverCase{
	{
		name: "tracker",
		tools: []string{"init", "ready", "create_issue", "show_issue", "update_issue", "close_issue", "link",
			"list_issues", "create_spec", "add_feedback", "search", "status"},
		prepare:  func(t *testing.T) string { return t.TempDir() },
		stdio:    func(string) []string { return []string{"mcp"} },
		http:     func(string) []string { return []string{"mcp", "--http", "127.0.0.1:0"} },
		exercise: exerciseTracker,
	},
	{
		name:    "rulesets",
		tools:   []string{"upsert_ruleset", "get_ruleset", "delete_ruleset", "list_rulesets", "search_rulesets"},
		prepare: func(t *testing.T) string { return t.TempDir() },
		stdio: func(dir string) []string {
			return []string{"mcp", "rulesets", "--store", filepath.Join(dir, "store")}
		},
		http: func(dir string) []string {
			return []string{"mcp", "rulesets", "--store", filepath.Join(dir, "store"), "--http", "127.0.0.1:0"}
		},
		exercise: exerciseRulesets,
	},
	{
		name: "coding",
		tools: []string{"read_file", "list_dir", "list_files", "search_text", "apply_patch", "exec_command",
			"write_stdin", "kill_session", "git_status", "git_diff", "request_permissions", "view_image"},
		prepare: func(t *testing.T) string {
			dir := t.TempDir()
			writeFile(t, dir, "README.md", "# Demo\n")
			writeFile(t, dir, "notes/hello.txt", "hello\nworld\n")
			return dir
		},
		stdio: func(dir string) []string { return []string{"mcp", "coding", "--workspace", dir, "--stdio"} },
		http: func(dir string) []string {
			return []string{"mcp", "coding", "--workspace", dir, "--host", "127.0.0.1", "--port", "0"}
		},
		exercise: exerciseCoding,
	},
	{
		name:    "agent",
		tools:   []string{"create_task", "update_task", "end_task", "report_task"},
		prepare: func(t *testing.T) string { return testkit.Repo(t) },
		stdio:   func(dir string) []string { return []string{"mcp", "agent", "--project", dir} },
		// The agent server needs a token over HTTP unless told otherwise;
		// the external tools check the protocol, and not all of them send
		// headers, so it serves them without one (its token is tested in
		// internal/cli).
		http: func(dir string) []string {
			return []string{"mcp", "agent", "--project", dir, "--http", "127.0.0.1:0", "--no-auth"}
		},
		exercise: exerciseAgent,
	},
}
