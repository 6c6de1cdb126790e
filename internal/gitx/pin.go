package gitx

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// A command that can write a work tree can rewrite, at any moment, the
// files that tell git where the repository is: .git (a directory, or a
// "gitdir:" file), the git directory's commondir, and the common
// directory's objects/info/alternates. So gitx reads them itself, once
// per discovery, checks every place they name, and gives git the result
// (GIT_DIR, GIT_COMMON_DIR, GIT_WORK_TREE: see Repo.environ), so that
// git never reads the first two again; the sandbox is granted the work
// tree and those pinned places only.
//
// A place is allowed inside the work tree, or it is a linked worktree's
// registration (git worktree add): <common>/worktrees/<name>, whose
// gitdir file names this work tree's .git. That file lies outside the
// work tree, so the repository confirms from where the command cannot
// write that this work tree is its own; the common directory then holds
// the registration. Anything else outside is refused.

// errUnsure: the .git of a work tree is missing or is not what git
// writes; git's own discovery gives the verdict (and its message).
var errUnsure = errors.New("a repository layout left to git")

// fileLimit bounds each small file read (.git, commondir, gitdir,
// alternates).
const fileLimit = 64 << 10

// maxAlternateDepth is how deep git follows alternates of alternates.
const maxAlternateDepth = 5

// pin reads where the repository whose work tree top is (canonical)
// keeps its git directory and common directory, and checks them and
// every object directory it borrows. gitFile reports whether top/.git is
// a "gitdir:" file. Errors: errUnsure, or a *RefusedError.
func pin(top string) (r *Repo, gitFile bool, err error) {
	dotgit := filepath.Join(top, ".git")
	fi, err := os.Lstat(dotgit)
	if err != nil {
		return nil, false, errUnsure
	}
	var gitDir string
	switch {
	case fi.IsDir():
		gitDir = dotgit
	case fi.Mode()&fs.ModeSymlink != 0: // git follows it as a directory
		if gitDir, err = filepath.EvalSymlinks(dotgit); err != nil {
			return nil, false, errUnsure
		}
	case fi.Mode().IsRegular():
		b, err := readSmall(dotgit)
		if err != nil {
			return nil, false, refused(top, "cannot read %s: %v", dotgit, err)
		}
		p, ok := strings.CutPrefix(trimEOL(string(b)), "gitdir: ")
		if !ok || p == "" {
			return nil, false, errUnsure
		}
		if gitDir, err = resolve(top, p); err != nil {
			return nil, false, errUnsure
		}
		gitFile = true
	default:
		return nil, false, errUnsure
	}
	if st, err := os.Stat(gitDir); err != nil || !st.IsDir() {
		return nil, false, errUnsure
	}
	common := gitDir
	switch b, err := readSmall(filepath.Join(gitDir, "commondir")); {
	case err == nil:
		if common, err = resolve(gitDir, trimEOL(string(b))); err != nil {
			return nil, false, refused(top, "%s/commondir names %q, which cannot be resolved: %v", gitDir, trimEOL(string(b)), err)
		}
	case !errors.Is(err, fs.ErrNotExist):
		return nil, false, refused(top, "cannot read %s/commondir: %v", gitDir, err)
	}
	r = &Repo{Top: top, GitDir: gitDir, CommonDir: common}
	places := []string{top}
	if !within(gitDir, top) {
		if !gitFile || !registered(dotgit, gitDir, common) {
			return nil, false, refused(top, "%s names the git directory %s, outside the work tree %s, and that is no linked worktree of this work tree (git worktree add)", dotgit, gitDir, top)
		}
		places = append(places, common)
	} else if !within(common, top) {
		return nil, false, refused(top, "%s/commondir names the common directory %s, outside the work tree %s", gitDir, common, top)
	}
	if err := checkObjects(top, filepath.Join(common, "objects"), places, 0); err != nil {
		return nil, false, err
	}
	return r, gitFile, nil
}

// registered reports whether gitDir is a linked worktree's registration
// in common whose gitdir file names dotgit.
func registered(dotgit, gitDir, common string) bool {
	if filepath.Dir(gitDir) != filepath.Join(common, "worktrees") {
		return false
	}
	b, err := readSmall(filepath.Join(gitDir, "gitdir"))
	if err != nil {
		return false
	}
	back, err := resolve(gitDir, trimEOL(string(b)))
	return err == nil && back == dotgit
}

// checkObjects checks that the object directory objects and the
// alternates it names (and theirs, as deep as git goes) lie in places.
func checkObjects(top, objects string, places []string, depth int) error {
	dir, err := filepath.EvalSymlinks(objects)
	if errors.Is(err, fs.ErrNotExist) {
		dir = filepath.Clean(objects)
	} else if err != nil {
		return refused(top, "cannot resolve the object directory %s: %v", objects, err)
	}
	if !inAny(dir, places) {
		return refused(top, "the object directory %s is %s, outside the work tree %s", objects, dir, top)
	}
	if depth >= maxAlternateDepth {
		return nil
	}
	alternates := filepath.Join(dir, "info", "alternates")
	b, err := readSmall(alternates)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return refused(top, "cannot read %s: %v", alternates, err)
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		line = strings.TrimSuffix(line, "\r")
		if line == "" || line[0] == '#' {
			continue
		}
		if line[0] == '"' {
			if line, err = strconv.Unquote(line); err != nil {
				return refused(top, "%s holds an entry git's quoting does not explain: %v", alternates, err)
			}
		}
		if !filepath.IsAbs(line) {
			line = filepath.Join(dir, line)
		}
		if err := checkObjects(top, line, places, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// readSmall reads a small regular file without following a link in its
// last component and without blocking on a FIFO.
func readSmall(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, fmt.Errorf("%s is a symbolic link", path)
		}
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	b, err := io.ReadAll(io.LimitReader(f, fileLimit+1))
	if err == nil && len(b) > fileLimit {
		err = fmt.Errorf("%s is larger than %d bytes", path, fileLimit)
	}
	return b, err
}

// resolve is p, relative to base unless absolute, canonical.
func resolve(base, p string) (string, error) {
	if !filepath.IsAbs(p) {
		p = filepath.Join(base, p)
	}
	return filepath.EvalSymlinks(p)
}

// trimEOL drops the line ends git drops from these files.
func trimEOL(s string) string { return strings.TrimRight(s, "\r\n") }

func inAny(p string, places []string) bool {
	for _, d := range places {
		if within(p, d) {
			return true
		}
	}
	return false
}

func refused(top, format string, args ...any) error {
	return &RefusedError{Top: top, Reason: fmt.Sprintf(format, args...)}
}

// unchanged checks, as git starts, the one file git reads again whatever
// its environment says: the git directory's commondir, from which git's
// ref store finds the common directory. A command can rewrite it at any
// moment where it can write the git directory; in the moment between
// this check and git's own read, the sandbox holds (it grants the pinned
// places, never the one commondir would name, and ref updates run
// sandboxed).
func (r *Repo) unchanged() error {
	b, err := readSmall(filepath.Join(r.GitDir, "commondir"))
	if errors.Is(err, fs.ErrNotExist) && r.CommonDir == r.GitDir {
		return nil
	}
	if err == nil {
		if common, err := resolve(r.GitDir, trimEOL(string(b))); err == nil && common == r.CommonDir {
			return nil
		}
	}
	return refused(r.Top, "%s/commondir changed since the repository was discovered (it now names another common directory)", r.GitDir)
}
