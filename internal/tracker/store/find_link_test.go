package store

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/fault"
)

// Finding a tracker (the CLI's and the MCP server's way in) and init
// refuse a .sudocode that is a symbolic link, from the project and from
// below it, rather than use the tracker it leads to.
func TestLinkedTrackerDirRefused(t *testing.T) {
	other := t.TempDir()
	if _, err := Init(other, "theirs"); err != nil {
		t.Fatal(err)
	}
	here := t.TempDir()
	if err := os.Symlink(filepath.Join(other, DirName), filepath.Join(here, DirName)); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(here, "a", "b")
	os.MkdirAll(sub, 0o755)
	for _, start := range []string{here, sub} {
		dir, err := FindFrom(start)
		if fault.CodeOf(err) != fault.Invalid || !strings.Contains(err.Error(), "symbolic link") {
			t.Errorf("FindFrom(%s) = %q, %v", start, dir, err)
		}
	}
	if _, err := Init(here, "mine"); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("init through the link: %v", err)
	}
}
