package loop_test

import (
	"fmt"
	"os"
	"testing"
)

// TestMain points the default worktree root ($XDG_STATE_HOME) at a
// directory of the test run, so that no test leaves worktrees behind.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "sudocode-loop-state-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("XDG_STATE_HOME", dir)
	os.Unsetenv("SUDOCODE_WORKTREES")
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
