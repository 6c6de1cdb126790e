package npmtool

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/testkit"
)

// requireNode installs Node, failing under CI and skipping elsewhere when
// it cannot.
func requireNode(t *testing.T) *Node {
	t.Helper()
	n, err := InstallNode()
	if err != nil {
		testkit.Missing(t, "installing Node from npm (apt-get install -y npm): %v", err)
	}
	return n
}

// The installed Node runs and is the pinned version, and it runs a script
// with its directory first on PATH (so a tool's `#!/usr/bin/env node`
// finds it rather than an older system node).
func TestInstallNode(t *testing.T) {
	n := requireNode(t)
	cmd := exec.Command("sh", "-c", "node --version")
	cmd.Env = n.Env([]string{"PATH=/usr/bin:/bin"})
	out, err := cmd.CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "v"+NodeVersion {
		t.Fatalf("node --version with Env: %q, %v (want v%s)", out, err, NodeVersion)
	}
}

// A package already in the cache is not installed again: Install returns
// its prefix without running npm, which it could not find here.
func TestInstallCached(t *testing.T) {
	t.Setenv("SUDOCODE_NPM_CACHE", t.TempDir())
	root, err := CacheDir()
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(root, "pkgs", "@scope+tool@1.2.3")
	writePkg(t, want, "@scope/tool", "1.2.3", `{"tool":"bin/tool.js"}`)
	if err := os.WriteFile(filepath.Join(want, installedMarker), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", t.TempDir())
	got, err := Install("@scope/tool", "1.2.3", "")
	if err != nil || got != want {
		t.Fatalf("Install of a cached package = %q, %v; want %q", got, err, want)
	}
	if _, err := Install("@scope/tool", "1.2.4", ""); err == nil || !strings.Contains(err.Error(), "npm is not on PATH") {
		t.Fatalf("Install of an uncached version without npm: %v, want an error naming npm", err)
	}
	script, err := BinScript(got, "@scope/tool", "1.2.3", "tool")
	if err != nil || script != filepath.Join(got, "node_modules", "@scope", "tool", "bin", "tool.js") {
		t.Fatalf("BinScript = %q, %v", script, err)
	}
	if _, err := BinScript(got, "@scope/tool", "1.2.4", "tool"); err == nil || !strings.Contains(err.Error(), "want 1.2.4") {
		t.Fatalf("BinScript of another version: %v, want a version mismatch", err)
	}
}

func writePkg(t *testing.T, prefix, name, version, bin string) {
	t.Helper()
	dir := filepath.Join(prefix, "node_modules", filepath.FromSlash(name))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	pj := `{"name":"` + name + `","version":"` + version + `","bin":` + bin + `}`
	if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(pj), 0o644); err != nil {
		t.Fatal(err)
	}
}
