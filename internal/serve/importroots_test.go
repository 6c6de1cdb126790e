package serve_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/serve"
)

// import_rules reads only under the server's import roots: not /etc, and
// not through a link inside a root that leads out of it.
func TestImportRulesStaysUnderItsRoots(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "CLAUDE.md"), []byte("# Outside\nA secret of another project.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "other")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "CLAUDE.md"), filepath.Join(root, "CLAUDE.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "ok"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "ok", "AGENTS.md"), []byte("# Inside\nRules of this project.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SUDOCODE_IMPORT_ROOTS", root)
	base, _ := owners(t)
	rulesets := as(t, base+serve.PathRulesets, aliceToken)
	for _, p := range []string{"/etc", "/etc/hostname", filepath.Join(root, "other"), filepath.Join(root, "other", "CLAUDE.md"),
		filepath.Join(root, "CLAUDE.md"), filepath.Join(root, "ok", "..", "..")} {
		res := call(t, rulesets, "import_rules", map[string]any{"path": p})
		if !res.IsError {
			t.Errorf("import_rules %s: %s, want refused", p, text(res))
		}
	}
	res := call(t, rulesets, "import_rules", map[string]any{"path": filepath.Join(root, "ok")})
	if res.IsError || !strings.Contains(text(res), "created") {
		t.Errorf("import_rules under the root: %s", text(res))
	}
}
