package serve_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/serve"
	"github.com/sudocode/sudocode/internal/testkit"
)

// serve prepares a warm worktree at startup, so that its first task
// starts in one instead of checking out every file.
func TestServePreparesAWarmWorktree(t *testing.T) {
	root := t.TempDir()
	start(t, project(t), serve.Options{Worktrees: root})
	testkit.WaitFor(t, 30*time.Second, "a warm worktree under "+root, func() bool {
		m, _ := filepath.Glob(filepath.Join(root, "*", "warm-*"))
		return len(m) > 0
	})
}
