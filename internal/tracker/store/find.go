// Package store keeps a tracker: the JSONL and markdown files under
// .sudocode/ (the truth, tracked in git) and cache.db, a SQLite index of
// them that is rebuilt whenever the files differ from what it was built
// from. Every change takes an exclusive lock, updates the index in a
// transaction and rewrites the changed files atomically, so that several
// processes can work at once and a crash never leaves a truncated file.
package store

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/sudocode/sudocode/internal/fault"
)

// DirName is the tracker's directory in a project.
const DirName = ".sudocode"

// Files under DirName.
const (
	ConfigFile = "config.json"
	SpecsDir   = "specs" // spec bodies; the records are under tracker.RecordsDir
	CacheFile  = "cache.db"
	LockFile   = ".lock"
)

// Find returns the .sudocode directory for a command run in wd with the
// environment getenv: SUDOCODE_DB (the cache file or the directory itself)
// when set, else the first .sudocode found walking up from
// SUDOCODE_WORKING_DIR (or wd), as git finds .git. Relative paths in
// either are taken from wd.
func Find(wd string, getenv func(string) string) (string, error) {
	if db := getenv("SUDOCODE_DB"); db != "" {
		dir := db
		if filepath.Base(db) != DirName {
			dir = filepath.Dir(db)
		}
		if isTracker(within(wd, dir)) {
			return filepath.Abs(within(wd, dir))
		}
		return "", noTracker(db)
	}
	start := wd
	if d := getenv("SUDOCODE_WORKING_DIR"); d != "" {
		start = within(wd, d)
	}
	return FindFrom(start)
}

// within is p taken from the directory wd.
func within(wd, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(wd, p)
}

// FindFrom returns the first .sudocode found walking up from start,
// whatever the environment says.
func FindFrom(start string) (string, error) {
	abs, err := filepath.Abs(start)
	if err != nil {
		return "", fault.Wrap(fault.Invalid, err, "bad working directory")
	}
	for dir := abs; ; dir = filepath.Dir(dir) {
		tdir := filepath.Join(dir, DirName)
		if err := refuseLink(tdir); err != nil {
			return "", err
		}
		if isTracker(tdir) {
			return tdir, nil
		}
		if filepath.Dir(dir) == dir {
			return "", noTracker(abs)
		}
	}
}

// refuseLink refuses a .sudocode that is a symbolic link: a repository
// could commit one that leads to another project's tracker, and every
// command would then change that project's issues. A tracker is the
// project's own directory, as git's .git is.
func refuseLink(tdir string) error {
	fi, err := os.Lstat(tdir)
	if err != nil || fi.Mode()&os.ModeSymlink == 0 {
		return nil
	}
	target, _ := os.Readlink(tdir)
	return fault.New(fault.Invalid, "%s is a symbolic link (to %s): refusing to use a tracker through it", tdir, target).
		WithHint("a project's .sudocode must be a directory of its own: remove the link (and run `sudocode init` there), " +
			"or point SUDOCODE_DB at the tracker you mean")
}

func isTracker(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, ConfigFile))
	return err == nil
}

// ErrNoTracker is in the chain of Find's error when there is no .sudocode.
var ErrNoTracker = errors.New("no tracker")

func noTracker(where string) error {
	e := fault.New(fault.NotFound, "no .sudocode found in %s or any parent directory", where).
		WithHint("run `sudocode init` (the init tool) in the project's root first")
	e.Err = ErrNoTracker
	return e
}
