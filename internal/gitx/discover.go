package gitx

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// findTop walks up from dir (canonical) as git's discovery does, to the
// first directory holding a .git: "" when there is none below the
// ceiling (GIT_CEILING_DIRECTORIES, which git gets too) or the root.
// sure is false where git's own discovery must decide: a directory that
// may itself be a git directory (dir inside .git, a bare repository), a
// filesystem boundary (git stops there with its own message), a ceiling
// it might read otherwise.
func findTop(dir string) (top string, sure bool) {
	ceiling, ok := ceilingAbove(dir)
	if !ok {
		return "", false
	}
	dev, ok := device(dir)
	if !ok {
		return "", false
	}
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d, true
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", false
		}
		if _, err := os.Lstat(filepath.Join(d, "HEAD")); !errors.Is(err, fs.ErrNotExist) {
			return "", false
		}
		parent := filepath.Dir(d)
		if parent == d || (ceiling != "" && !strictlyWithin(parent, ceiling)) {
			return "", true
		}
		if pdev, ok := device(parent); !ok || pdev != dev {
			return "", false
		}
		d = parent
	}
}

// ceilingAbove is the deepest GIT_CEILING_DIRECTORIES entry strictly
// above dir ("" for none): git does not go up into it. ok is false for
// entries whose meaning is git's to apply (relative ones, the root, the
// empty entry that turns off their resolution).
func ceilingAbove(dir string) (string, bool) {
	v := os.Getenv("GIT_CEILING_DIRECTORIES")
	if v == "" {
		return "", true
	}
	best := ""
	for _, c := range filepath.SplitList(v) {
		if c == "" || !filepath.IsAbs(c) || filepath.Clean(c) == "/" {
			return "", false
		}
		if real, err := filepath.EvalSymlinks(c); err == nil {
			c = real
		} else {
			c = filepath.Clean(c)
		}
		if strictlyWithin(dir, c) && len(c) > len(best) {
			best = c
		}
	}
	return best, true
}

func strictlyWithin(p, dir string) bool { return p != dir && within(p, dir) }

func device(p string) (uint64, bool) {
	var st syscall.Stat_t
	if err := syscall.Stat(p, &st); err != nil {
		return 0, false
	}
	return uint64(st.Dev), true
}

// plain reports whether git, finding r on its own, takes it as it is:
// the user owns the work tree, the .git file and the git directory (git
// refuses another owner's unless safe.directory, in the user's
// configuration, says otherwise), and the repository's configuration
// neither moves the work tree (core.worktree, core.bare) nor includes
// files that might. Anything else is left to git's rev-parse.
func plain(r *Repo, gitFile bool) bool {
	owned := []string{r.Top, r.GitDir}
	if gitFile {
		owned = append(owned, filepath.Join(r.Top, ".git"))
	}
	uid := uint32(os.Geteuid())
	for _, p := range owned {
		var st syscall.Stat_t
		if syscall.Lstat(p, &st) != nil || st.Uid != uid {
			return false
		}
	}
	if _, err := os.Lstat(filepath.Join(r.GitDir, "config.worktree")); !errors.Is(err, fs.ErrNotExist) {
		return false
	}
	b, err := readSmall(filepath.Join(r.CommonDir, "config"))
	return err == nil && !movesWorkTree(string(b))
}

// movesWorkTree reports whether a git configuration file may set
// core.worktree or a true core.bare, or include another file. It reads
// conservatively: what it does not understand counts as yes.
func movesWorkTree(config string) bool {
	section := ""
	for line := range strings.SplitSeq(config, "\n") {
		line = strings.TrimSpace(line)
		if strings.HasSuffix(line, "\\") {
			return true // a continued value: not worth parsing
		}
		if strings.HasPrefix(line, "[") {
			end := strings.IndexByte(line, ']')
			if end < 0 {
				return true
			}
			name := strings.ToLower(strings.TrimSpace(line[1:end]))
			if i := strings.IndexAny(name, " \t\""); i >= 0 {
				name = name[:i]
			}
			if strings.Contains(name, ".") {
				name = name[:strings.IndexByte(name, '.')]
			}
			if name == "include" || name == "includeif" {
				return true
			}
			section, line = name, strings.TrimSpace(line[end+1:])
		}
		if line == "" || line[0] == '#' || line[0] == ';' || section != "core" {
			continue
		}
		key, value, hasValue := strings.Cut(line, "=")
		key = strings.ToLower(strings.TrimSpace(key))
		switch key {
		case "worktree":
			return true
		case "bare":
			if !hasValue {
				return true
			}
			value, _, _ = strings.Cut(value, "#")
			value, _, _ = strings.Cut(value, ";")
			switch strings.ToLower(strings.Trim(strings.TrimSpace(value), `"`)) {
			case "false", "no", "off", "0":
			default:
				return true
			}
		}
	}
	return false
}
