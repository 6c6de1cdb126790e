package fleetrun

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"strings"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/gitx"
	"github.com/sudocode/sudocode/internal/userenv"
)

// Locate finds the repository of the checkout dir is in: its key (the
// fleet's name for the repository, the same in every clone of it, as
// workers know it) and the fleet directory of this checkout in env's
// state directory: its embedded server, credentials, registry and the
// workers' repository. The directory is the checkout's own: two clones of
// one repository on a machine never share a server's store, nor a
// workers' repository that borrows the objects of the other (which would
// break when that clone is deleted).
func Locate(ctx context.Context, env userenv.Env, dir string) (key, fleetDir string, err error) {
	if key, err = RepoKey(ctx, dir); err != nil {
		return "", "", err
	}
	top, err := gitx.Output(ctx, gitx.Options{Dir: dir}, 4096, "rev-parse", "--show-toplevel")
	if err != nil {
		return "", "", fault.Wrap(fault.Invalid, err, dir+" is not in a git repository")
	}
	st, err := env.StateDir()
	if err != nil {
		return "", "", err
	}
	sum := sha256.Sum256([]byte(filepath.Clean(strings.TrimSpace(string(top)))))
	return key, filepath.Join(st, "sudocode", "fleet", key+"-"+hex.EncodeToString(sum[:4])), nil
}

// WorkerDir is where worker name keeps its clones, worktrees and records
// in env's state directory.
func WorkerDir(env userenv.Env, name string) (string, error) {
	st, err := env.StateDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(st, "sudocode", "worker", name), nil
}
