package orchestrator

import (
	"fmt"
	"os"
	"testing"
)

// TestMain points the default worktree root ($XDG_STATE_HOME) at a
// directory of the test run, so that no test leaves worktrees in the
// user's state directory.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "sudocode-orchestrator-state-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("XDG_STATE_HOME", dir)
	os.Unsetenv(EnvWorktrees)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
