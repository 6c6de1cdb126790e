package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestRulesetsExport: export writes the files, --check exits 1 while a
// file differs and 0 once exported, a hand edit makes export exit 4 and
// keeps the file; --json's fields are pinned.
func TestRulesetsExport(t *testing.T) {
	t.Parallel()
	l := newLibrary(t)
	repo := t.TempDir()
	l.ok("", "put", "go_style", "-d", "Go style", "-f", writeFile(t, "Use gofmt."), "--glob", "**/*.go")
	l.ok("Exported to agents, copilot: 2 created, 0 updated, 0 removed, 0 unchanged, 0 not overwritten\n"+
		"created .github/instructions/go-style.instructions.md\ncreated AGENTS.md\n", "export", "--to", "agents,copilot", "--dir", repo)
	l.ok("All 2 file(s) for agents, copilot match the library\n", "export", "--to", "agents,copilot", "--dir", repo, "--check")
	l.ok("", "put", "go_style", "-f", writeFile(t, "Use gofmt and vet."))
	r := l.run("", "export", "--to", "agents,copilot", "--dir", repo, "--check")
	if r.code != 1 || r.stdout != "2 file(s) for agents, copilot differ from the library (sudocode rulesets export writes them):\n"+
		"outdated .github/instructions/go-style.instructions.md\noutdated AGENTS.md\n" {
		t.Fatalf("--check after a change: %+v", r)
	}
	l.ok("", "export", "--to", "agents,copilot", "--dir", repo)
	agents := filepath.Join(repo, "AGENTS.md")
	b, _ := os.ReadFile(agents)
	os.WriteFile(agents, []byte(strings.Replace(string(b), "vet", "staticcheck", 1)), 0o644)
	l.ok("", "put", "go_style", "-d", "Go style, v2")
	r = l.run("", "export", "--to", "agents", "--dir", repo, "--json")
	if r.code != 4 {
		t.Fatalf("export over a hand edit: %+v", r)
	}
	var rep map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if keys := jsonKeys(t, rep); !slices.Equal(keys, []string{"agents", "check", "files", "unchanged"}) {
		t.Errorf("export --json keys = %v", keys)
	}
	if after, _ := os.ReadFile(agents); !strings.Contains(string(after), "staticcheck") {
		t.Error("a hand-edited AGENTS.md was overwritten")
	}
	l.fail(2, `invalid target "vim": must be one of claude, agents, cursor, copilot, gemini, windsurf`, "export", "--to", "vim", "--dir", repo)
}
