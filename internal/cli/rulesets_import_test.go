package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestRulesetsImport: import reports each ruleset it created, updated or
// skipped (--json's fields pinned), and overwrites only with --force.
func TestRulesetsImport(t *testing.T) {
	t.Parallel()
	l := newLibrary(t)
	repo := t.TempDir()
	os.MkdirAll(filepath.Join(repo, ".cursor", "rules"), 0o755)
	os.WriteFile(filepath.Join(repo, "CLAUDE.md"), []byte("# Notes\n\nBe brief.\n"), 0o644)
	os.WriteFile(filepath.Join(repo, ".cursor", "rules", "go-style.mdc"), []byte("---\ndescription: Go style\nglobs: **/*.go\nalwaysApply: false\n---\nUse gofmt.\n"), 0o644)
	l.ok("Imported 2 ruleset(s): 2 created, 0 updated, 0 skipped\ncreated go_style (.cursor/rules/go-style.mdc)\ncreated claude (CLAUDE.md)\n", "import", repo)
	l.ok("---\nname: go_style\ndescription: Go style\ntags: []\nglobs: [\"**/*.go\"]\ncreated_at: TIME\nlast_modified: TIME\n---\n\nUse gofmt.\n", "get", "go_style")
	os.WriteFile(filepath.Join(repo, "CLAUDE.md"), []byte("# Notes\n\nBe briefer.\n"), 0o644)
	var rep map[string]any
	if err := json.Unmarshal([]byte(l.ok("", "import", repo, "--json")), &rep); err != nil {
		t.Fatal(err)
	}
	if keys := jsonKeys(t, rep); !slices.Equal(keys, []string{"created", "rulesets", "skipped", "updated"}) {
		t.Errorf("import --json keys = %v", keys)
	}
	items, _ := rep["rulesets"].([]any)
	if len(items) != 2 || rep["skipped"] != 2.0 {
		t.Fatalf("import --json = %v", rep)
	}
	if item, _ := items[1].(map[string]any); !slices.Equal(jsonKeys(t, item), []string{"action", "name", "reason", "source"}) ||
		item["reason"] != "the library's ruleset differs; pass --force (force: true) to overwrite it" {
		t.Errorf("import --json item = %v", item)
	}
	l.ok("Imported 2 ruleset(s): 0 created, 1 updated, 1 skipped\nskipped go_style (.cursor/rules/go-style.mdc): unchanged\nupdated claude (CLAUDE.md)\n", "import", repo, "--force")
	l.fail(2, "cannot import "+filepath.Join(repo, "none")+": stat "+filepath.Join(repo, "none")+": no such file or directory", "import", filepath.Join(repo, "none"))
}
