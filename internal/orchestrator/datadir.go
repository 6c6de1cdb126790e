package orchestrator

import (
	"context"
	"os"
	"path/filepath"
	"syscall"

	"github.com/sudocode/sudocode/internal/gitx"
)

// DataDir is where the task store of the repository holding dir lives:
// <git common dir>/sudocode, with symlinks resolved. It is the same from
// every work tree and subdirectory of the repository, whatever GIT_DIR
// and the like say in the server's environment, so that sudocode serve
// and sudocode mcp agent open one store.
func DataDir(ctx context.Context, dir string) (string, error) {
	common, err := gitx.CommonDir(ctx, dir)
	if err != nil {
		return "", err
	}
	return filepath.Join(common, "sudocode"), nil
}

// lookupDataDir is DataDir for a lookup, without running git when the
// answer is plain (a show of an issue looks its tasks up, and git costs
// a few milliseconds a call): "" when there is no .git in dir or above it
// (no repository, so no task), and dir/.git/sudocode when dir/.git is a
// directory of this user's (the main checkout: its own common directory).
// Anything else (a linked worktree's .git file, a repository above dir,
// another user's) asks git.
func lookupDataDir(ctx context.Context, dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if fi, err := os.Lstat(filepath.Join(abs, ".git")); err == nil && fi.IsDir() && ownedByUs(fi) {
		return filepath.Join(abs, ".git", "sudocode"), nil
	}
	for d := abs; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return DataDir(ctx, dir)
		}
		if filepath.Dir(d) == d {
			return "", nil
		}
	}
}

// ownedByUs reports whether the file belongs to this process's user.
func ownedByUs(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}
