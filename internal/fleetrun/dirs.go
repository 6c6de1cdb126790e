package fleetrun

import (
	"path/filepath"

	"github.com/sudocode/sudocode/internal/userenv"
)

// Dir is the fleet directory of repository key (a RepoKey) in env's
// state directory: its embedded server, credentials and registry.
func Dir(env userenv.Env, key string) (string, error) {
	st, err := env.StateDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(st, "sudocode", "fleet", key), nil
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
