package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sudocode mcp rulesets --import-root DIR: import_rules reads under DIR
// and nowhere else, a link inside DIR leading out of it included.
func TestRulesetsHTTPImportsUnderItsRoots(t *testing.T) {
	t.Parallel()
	root, outside := t.TempDir(), t.TempDir()
	svc := filepath.Join(root, "svc")
	if err := os.Mkdir(svc, 0o755); err != nil {
		t.Fatal(err)
	}
	for dir, text := range map[string]string{svc: "# Service\nKeep it small.\n", outside: "# Elsewhere\nNot yours.\n"} {
		if err := os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(root, "elsewhere")); err != nil {
		t.Fatal(err)
	}
	env := childEnv(t)
	srv := startHTTP(t, env, sudocodeBin, "mcp", "rulesets", "--http", "127.0.0.1:0", "--store", t.TempDir(),
		"--token-file", teamTokenFile(t), "--import-root", root)
	alice := connectHTTP(t, srv.url, map[string]string{"Authorization": "Bearer " + teamAlice})
	importRules := func(path string) (string, bool) {
		res, err := alice.CallTool(t.Context(), &mcp.CallToolParams{Name: "import_rules", Arguments: map[string]any{"path": path}})
		if err != nil {
			t.Fatalf("import_rules %s: %v", path, err)
		}
		return res.Content[0].(*mcp.TextContent).Text, res.IsError
	}
	for _, p := range []string{outside, filepath.Join(root, "elsewhere"), filepath.Join(root, "elsewhere", "AGENTS.md"), "/etc"} {
		if text, isErr := importRules(p); !isErr {
			t.Errorf("import_rules %s: %s, want refused", p, text)
		}
	}
	if text, isErr := importRules("svc"); isErr || !strings.Contains(text, "1 created") {
		t.Errorf("import_rules svc (relative to the root): %s", text)
	}

	if r := sudocode(t, env, "", "mcp", "rulesets", "--import-root", ""); r.code != 2 || !strings.Contains(r.stderr, "--import-root needs a directory") {
		t.Errorf("--import-root \"\": %+v", r)
	}
}
