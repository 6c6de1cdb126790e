package fleetrun

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/gitx"
)

// Mirror is the repository the fleet's workers fetch from and push to: a
// bare repository in the fleet directory dir, borrowing the objects of
// the checkout's repository (git's alternates), so that making it copies
// nothing and it serves any commit of the checkout, which a worker asks
// for by its id, with no ref pushed there. Workers never write the
// user's repository, and their pushes do not race its worktrees (whose
// half-made HEADs a push's connectivity check reads as bad objects).
func Mirror(ctx context.Context, checkout, dir string) (string, error) {
	path := filepath.Join(dir, "repo.git")
	if _, err := os.Stat(filepath.Join(path, "objects")); err == nil {
		return path, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(dir, ".repo-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	if _, err := gitx.Output(ctx, gitx.Options{Dir: tmp, Transport: true, Locks: true, Timeout: 10 * time.Minute}, 1<<20,
		"clone", "--quiet", "--bare", "--shared", "--no-tags", "--", checkout, filepath.Join(tmp, "r")); err != nil {
		return "", fault.Wrap(fault.Unavailable, err, "failed to make the workers' repository in "+dir)
	}
	if err := os.Rename(filepath.Join(tmp, "r"), path); err != nil {
		return "", err
	}
	return path, nil
}
