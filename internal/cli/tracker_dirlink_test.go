package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A .sudocode that is a symbolic link is refused, as git refuses what is
// not its own: a repository that commits .sudocode as a link to another
// project's tracker would otherwise have the CLI (and the MCP server,
// which finds it the same way) change that project's issues.
func TestLinkedTrackerRefused(t *testing.T) {
	other := newProj(t)
	id := other.js("issue", "create", "Theirs").str("id")
	here := newBareProj(t)
	if err := os.Symlink(other.dir, filepath.Join(here.root, ".sudocode")); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(here.root, "src")
	os.MkdirAll(sub, 0o755)
	for _, dir := range []string{here.root, sub} {
		r := runAt(t, dir, here.env, "", "issue", "close", id)
		if r.code == 0 || !strings.Contains(r.stderr, "symbolic link") {
			t.Fatalf("close through a linked .sudocode in %s: exit %d\n%s%s", dir, r.code, r.stdout, r.stderr)
		}
	}
	if st := other.js("issue", "show", id).str("status"); st != "open" {
		t.Errorf("the other project's issue is %s", st)
	}
}
