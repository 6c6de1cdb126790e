package gitx

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// Repo is where a repository lives, pinned by Discover: the places every
// git call of gitx is given, and a sandboxed git may write.
type Repo struct {
	Top       string // the work tree's top level
	GitDir    string // this work tree's git directory
	CommonDir string // the directory shared by every work tree (.git)
	// Prefix is the directory's path below Top, "/"-separated with a
	// trailing slash; "" at the top level.
	Prefix string
}

// environ pins git to r: with these set git reads neither .git nor
// commondir, whatever they say by the time it runs.
func (r *Repo) environ() []string {
	return []string{"GIT_DIR=" + r.GitDir, "GIT_COMMON_DIR=" + r.CommonDir, "GIT_WORK_TREE=" + r.Top}
}

// outside are r's git and common directories where they lie outside the
// work tree (a linked worktree's, in its repository's .git).
func (r *Repo) outside() []string {
	var out []string
	for _, d := range []string{r.GitDir, r.CommonDir} {
		if !within(d, r.Top) {
			out = append(out, d)
		}
	}
	return out
}

// grants reports whether dir lies in a place the sandbox grants every
// call on r: its work tree, or its git or common directory.
func (r *Repo) grants(dir string) bool {
	return within(dir, r.Top) || slices.ContainsFunc(r.outside(), func(d string) bool { return within(dir, d) })
}

// notARepository is git's own verdict for a directory with no repository
// at or above it, given without running git.
var notARepository = &ExitError{Args: []string{"rev-parse"}, Code: 128,
	Stderr: "fatal: not a git repository (or any of the parent directories): .git\n"}

// Discover finds and pins the repository whose work tree holds o.Dir (see
// pin.go). It reads the files git reads, as git does, and asks git (one
// hardened rev-parse, which runs no program of the repository) only where
// the layout is not the plain one (another owner, core.worktree, an
// included configuration, a directory inside a git directory, a
// filesystem boundary). Without git it fails as the rev-parse would
// (*NotFoundError); outside a work tree, with git's own message ("not a
// git repository", "must be run in a work tree") as an *ExitError. A
// .git file, commondir or alternates naming a place outside the work
// tree (but a linked worktree's registration), and a work tree elsewhere
// (core.worktree), are a *RefusedError.
func Discover(ctx context.Context, o Options) (*Repo, error) {
	if _, err := lookGit(o); err != nil {
		return nil, err // as the rev-parse this stands for would have failed
	}
	dir, err := canonical(o.Dir)
	if err != nil {
		return nil, err
	}
	top, sure := findTop(dir)
	if sure && top == "" {
		return nil, notARepository
	}
	if sure {
		r, gitFile, err := pin(top)
		if err != nil && !errors.Is(err, errUnsure) {
			return nil, err
		}
		if err == nil && plain(r, gitFile) {
			r.Prefix = prefix(dir, top)
			return r, nil
		}
	}
	return discoverByGit(ctx, o, dir)
}

// discoverByGit is Discover through git's rev-parse, whose answer is then
// pinned like any other: it must agree with what the files say.
func discoverByGit(ctx context.Context, o Options, dir string) (*Repo, error) {
	o.Repo = nil
	out, err := output(ctx, o, 1<<16, false, "rev-parse", "--path-format=absolute", "--show-toplevel", "--git-dir", "--git-common-dir", "--show-prefix")
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
	top, err := canonical(lines[0])
	if err != nil {
		return nil, err
	}
	if !within(dir, top) {
		return nil, refused(top, "the work tree of the repository at %s is %s (core.worktree), outside %s", lines[1], lines[0], o.Dir)
	}
	r, _, err := pin(top)
	if errors.Is(err, errUnsure) {
		return nil, refused(top, "git finds the repository at %s, but %s/.git does not lead there (core.worktree, or a layout gitx cannot pin)", lines[1], top)
	}
	if err != nil {
		return nil, err
	}
	gitDir, err1 := canonical(lines[1])
	common, err2 := canonical(lines[2])
	if err1 != nil || err2 != nil || gitDir != r.GitDir || common != r.CommonDir {
		return nil, refused(top, "git finds the git directory %s and common directory %s, but the files in the work tree name %s and %s (they changed while being read, or core.worktree points here from elsewhere)", lines[1], lines[2], r.GitDir, r.CommonDir)
	}
	r.Prefix = lines[3]
	return r, nil
}

// CommonDir is the absolute directory shared by every work tree of the
// repository holding dir (its .git), pinned as Discover pins it: where
// per-repository state such as the task store lives, whichever work tree
// or subdirectory asks.
func CommonDir(ctx context.Context, dir string) (string, error) {
	r, err := Discover(ctx, Options{Dir: dir})
	if err != nil {
		var ee *ExitError
		if errors.As(err, &ee) && strings.Contains(ee.Stderr, "not a git repository") {
			return "", fmt.Errorf("%s is not in a git repository (tasks need one: run `git init`)", dir)
		}
		return "", err
	}
	return r.CommonDir, nil
}

// prefix is dir's path below top as Repo.Prefix spells it.
func prefix(dir, top string) string {
	if dir == top {
		return ""
	}
	rel, err := filepath.Rel(top, dir)
	if err != nil {
		return ""
	}
	return filepath.ToSlash(rel) + "/"
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
