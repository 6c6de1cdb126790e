package gitx

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// Repo is where a repository lives, as git found it from a directory:
// the places a sandboxed git may write.
type Repo struct {
	Top       string // the work tree's top level
	GitDir    string // this work tree's git directory
	CommonDir string // the directory shared by every work tree (.git)
	// Prefix is the directory's path below Top, "/"-separated with a
	// trailing slash; "" at the top level.
	Prefix string
}

// Discover finds the repository whose work tree holds o.Dir, with one
// hardened rev-parse (which runs no program of the repository). Outside a
// work tree it fails with git's own message ("not a git repository",
// "must be run in a work tree") as an *ExitError. A work tree that is not
// around o.Dir (a core.worktree pointing elsewhere) is refused: git
// would read and write there.
func Discover(ctx context.Context, o Options) (*Repo, error) {
	o.Repo = nil
	out, err := Output(ctx, o, 1<<16, "rev-parse", "--path-format=absolute", "--show-toplevel", "--git-dir", "--git-common-dir", "--show-prefix")
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) == 3 { // an empty prefix is an empty last line
		lines = append(lines, "")
	}
	if len(lines) != 4 {
		return nil, fmt.Errorf("git rev-parse in %s: unexpected output %q", o.Dir, out)
	}
	r := &Repo{Top: lines[0], GitDir: lines[1], CommonDir: lines[2], Prefix: lines[3]}
	dir, err := canonical(o.Dir)
	if err != nil {
		return nil, err
	}
	top, err := canonical(r.Top)
	if err != nil {
		return nil, err
	}
	if !within(dir, top) {
		return nil, &ExitError{Args: []string{"rev-parse"}, Code: 128,
			Stderr: fmt.Sprintf("fatal: the work tree of the repository at %s is %s (core.worktree), outside %s: refused", r.GitDir, r.Top, o.Dir)}
	}
	return r, nil
}

// CommonDir is the absolute directory shared by every work tree of the
// repository holding dir (its .git): where per-repository state such as
// the task store lives, whichever work tree or subdirectory asks.
func CommonDir(ctx context.Context, dir string) (string, error) {
	out, err := Output(ctx, Options{Dir: dir}, 1<<16, "rev-parse", "--path-format=absolute", "--git-common-dir")
	if err != nil {
		var ee *ExitError
		if errors.As(err, &ee) && strings.Contains(ee.Stderr, "not a git repository") {
			return "", fmt.Errorf("%s is not in a git repository (tasks need one: run `git init`)", dir)
		}
		return "", err
	}
	common := strings.TrimSpace(string(out))
	if c, err := canonical(common); err == nil {
		common = c
	}
	return common, nil
}

// canonical is p absolute with symlinks resolved.
func canonical(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

// within reports whether p is dir or below it (both clean and absolute).
func within(p, dir string) bool {
	return p == dir || dir == "/" || strings.HasPrefix(p, dir+string(filepath.Separator))
}
