package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
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

// TestRulesetsRuleFilesAsPeopleWriteThem: through the binary, a Cursor
// rule with a hand-chosen name and a root-anchored glob, and an AGENTS.md
// in a hidden directory saved by a Windows editor, are imported as their
// tools read them (the report says what was normalised, --json's
// normalised pinned), resolve for the files they name, and are exported
// back to their own files.
func TestRulesetsRuleFilesAsPeopleWriteThem(t *testing.T) {
	t.Parallel()
	l := newLibrary(t)
	repo := t.TempDir()
	os.MkdirAll(filepath.Join(repo, ".cursor", "rules"), 0o755)
	os.MkdirAll(filepath.Join(repo, ".devcontainer"), 0o755)
	mdc := filepath.Join(repo, ".cursor", "rules", "01_python_code.mdc")
	os.WriteFile(mdc, []byte("---\ndescription: Python code\nglobs: /**/*.py\nalwaysApply: false\n---\nUse type hints.\n"), 0o644)
	os.WriteFile(filepath.Join(repo, ".devcontainer", "AGENTS.md"), []byte("\uFEFF# Container\r\n\r\nBuild inside it.\r\n"), 0o644)
	l.ok("Imported 2 ruleset(s): 2 created, 0 updated, 0 skipped\n"+
		"created 01_python_code (.cursor/rules/01_python_code.mdc)\n"+
		"created devcontainer_agents (.devcontainer/AGENTS.md); byte order mark removed, CRLF line endings made LF\n", "import", repo)
	var rep struct {
		Rulesets []map[string]any `json:"rulesets"`
	}
	if err := json.Unmarshal([]byte(l.ok("", "import", repo, "--json")), &rep); err != nil {
		t.Fatal(err)
	}
	if n, _ := json.Marshal(rep.Rulesets[1]["normalised"]); string(n) != `["byte order mark removed","CRLF line endings made LF"]` {
		t.Errorf("import --json normalised = %s", n)
	}
	if out := l.ok("", "resolve", "app/main.py", "--agent", "cursor"); !strings.Contains(out, "01_python_code (glob **/*.py matches app/main.py") {
		t.Errorf("resolve app/main.py:\n%s", out)
	}
	l.ok("Exported to cursor: 1 created, 1 updated, 0 removed, 0 unchanged, 0 not overwritten\n"+
		"updated .cursor/rules/01_python_code.mdc\ncreated .cursor/rules/devcontainer-agents.mdc\n", "export", "--dir", repo, "--to", "cursor")
	if _, err := os.Stat(filepath.Join(repo, ".cursor", "rules", "01-python-code.mdc")); err == nil {
		t.Error("export wrote a second copy, 01-python-code.mdc")
	}
	if b, _ := os.ReadFile(mdc); !strings.Contains(string(b), "Use type hints.") || !strings.Contains(string(b), "sudocode:generated") {
		t.Errorf("01_python_code.mdc after the export:\n%s", b)
	}
}
