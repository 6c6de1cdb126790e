package orchestrator

import (
	"context"
	"path/filepath"

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
