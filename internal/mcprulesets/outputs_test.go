package mcprulesets_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/mcprulesets"
)

// TestEveryToolMatchesItsOutputSchema calls every tool on a real Valkey
// (and on the embedded store) and checks each structured result against
// the output schema the tool publishes (the fixture checks every call):
// a field renamed in a result type alone fails here. The texts stay the
// specification's.
func TestEveryToolMatchesItsOutputSchema(t *testing.T) {
	repo := t.TempDir() // the one directory import_rules reads under
	t.Setenv(mcprulesets.EnvImportRoots, repo)
	forEachStore(t, func(t *testing.T, f *fixture) {
		f.ok("upsert_ruleset", map[string]any{"name": "python_style_guide", "description": "Python style",
			"tags": []string{"python", "style"}, "markdown": "# Python"}, "Successfully upserted ruleset 'python_style_guide'")
		f.ok("upsert_ruleset", map[string]any{"name": "go_conventions", "description": "Go", "markdown": "# Go"},
			"Successfully upserted ruleset 'go_conventions'")
		if text, isErr := f.call("get_ruleset", map[string]any{"name": "go_conventions"}); isErr || text == "" { // no tags: []
			t.Fatalf("get_ruleset: %q", text)
		}
		f.page("search_rulesets", map[string]any{"pattern": "go_*"})
		f.ok("upsert_ruleset", map[string]any{"name": "go_conventions", "tags": []string{"go"}}, "Successfully upserted ruleset 'go_conventions'")
		if text, isErr := f.call("get_ruleset", map[string]any{"name": "python_style_guide"}); isErr || text == "" {
			t.Fatalf("get_ruleset: %q", text)
		}
		f.page("list_rulesets", map[string]any{})
		first := f.page("list_rulesets", map[string]any{"limit": 1})
		f.page("list_rulesets", map[string]any{"limit": 1, "cursor": first.next})
		f.page("search_rulesets", map[string]any{"pattern": "*python*"})
		f.page("search_rulesets", map[string]any{"pattern": "nothing*"})
		if err := os.WriteFile(filepath.Join(repo, "CLAUDE.md"), []byte("# Notes\n\nBe brief.\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		f.ok("import_rules", map[string]any{"path": repo}, "Imported 1 ruleset(s): 1 created, 0 updated, 0 skipped\ncreated claude (CLAUDE.md)")
		f.ok("import_rules", map[string]any{"path": repo, "force": true}, "Imported 1 ruleset(s): 0 created, 0 updated, 1 skipped\nskipped claude (CLAUDE.md): unchanged")
		f.fails("import_rules", map[string]any{"path": filepath.Join(repo, "none")}, "failed to import rules: cannot import "+filepath.Join(repo, "none")+
			": statat none: no such file or directory")
		f.ok("resolve_rules", map[string]any{"path": "main.go", "agent": "claude"}, "3 ruleset(s) apply to main.go for claude, in order (about 8 tokens):\n\n"+
			"=== 1. claude (always; about 5 tokens): Notes ===\n# Notes\n\nBe brief.\n\n"+
			"=== 2. go_conventions (everywhere, when relevant; about 1 tokens): Go ===\n# Go\n\n"+
			"=== 3. python_style_guide (everywhere, when relevant; about 2 tokens): Python style ===\n# Python")
		f.fails("resolve_rules", map[string]any{"path": "/etc/passwd"}, "failed to resolve rules: invalid path '/etc/passwd': must be relative to the repository root")
		if text, isErr := f.call("get_ruleset_version", map[string]any{"name": "go_conventions", "version": 1}); isErr ||
			!strings.HasPrefix(text, "---\nname: go_conventions\nversion: 1\ndescription: Go\ntags: []\n") {
			t.Fatalf("get_ruleset_version: %q", text)
		}
		f.fails("get_ruleset_version", map[string]any{"name": "go_conventions", "version": 7}, "failed to retrieve ruleset version: version 7 of ruleset 'go_conventions' not found")
		if text, isErr := f.call("diff_ruleset_versions", map[string]any{"name": "go_conventions", "from": 1, "to": 2}); isErr ||
			!strings.Contains(text, "\n-tags: []\n+tags: [go]\n") {
			t.Fatalf("diff_ruleset_versions: %q", text)
		}
		f.ok("diff_ruleset_versions", map[string]any{"name": "go_conventions", "from": 2}, "No differences in ruleset 'go_conventions' between the two versions")
		f.ok("restore_ruleset", map[string]any{"name": "go_conventions", "version": 1}, "Successfully restored ruleset 'go_conventions' to version 1")
		f.ok("delete_ruleset", map[string]any{"name": "go_conventions"}, "Successfully deleted ruleset 'go_conventions'")
		f.fails("get_ruleset", map[string]any{"name": "go_conventions"}, "failed to retrieve ruleset: ruleset 'go_conventions' not found")
		if missing := f.schemas.Unchecked(); len(missing) > 0 {
			t.Errorf("tools never checked: %v", missing)
		}
	})
}
