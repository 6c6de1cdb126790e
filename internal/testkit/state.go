package testkit

import (
	"fmt"
	"os"
	"testing"
)

// RunWithPrivateState runs the package's tests (as Run does) with the
// default worktree root ($XDG_STATE_HOME, SUDOCODE_WORKTREES unset) in a
// directory of the test run, removed afterwards: no test leaves worktrees
// in the user's state directory. A package whose tests start agent tasks
// calls it from TestMain: os.Exit(testkit.RunWithPrivateState(m)).
func RunWithPrivateState(m *testing.M) int {
	dir, err := os.MkdirTemp("", "sudocode-test-state-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	os.Setenv("XDG_STATE_HOME", dir)
	os.Unsetenv("SUDOCODE_WORKTREES")
	return Run(m)
}
