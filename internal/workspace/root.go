package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// Root is the one workspace directory the tools may touch, canonical
// (absolute, symlinks resolved).
type Root struct {
	Path string
	// FS does the file operations: anchored at the root, it refuses any
	// path that resolves outside it, even through a symlink swapped in
	// after the checks below (they pick the profile's error codes; FS is
	// what makes an escape impossible).
	FS *os.Root
}

// Open canonicalises dir and refuses what cannot be a workspace: a missing
// path, a file, the filesystem root and the user's home directory.
func Open(dir string) (*Root, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	canon, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, errorf("workspace %s does not exist", dir)
	}
	fi, err := os.Stat(canon)
	if err != nil || !fi.IsDir() {
		return nil, errorf("workspace %s is not a directory", dir)
	}
	if canon == string(filepath.Separator) {
		return nil, errorf("refusing the filesystem root as the workspace")
	}
	if home, err := os.UserHomeDir(); err == nil {
		if h, err := filepath.EvalSymlinks(home); err == nil && h == canon {
			return nil, errorf("refusing the home directory %s as the workspace: pass a project directory", canon)
		}
	}
	fsys, err := os.OpenRoot(canon)
	if err != nil {
		return nil, err
	}
	return &Root{Path: canon, FS: fsys}, nil
}

func errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }

// Resolved is a path inside the workspace.
type Resolved struct {
	Rel string // canonical workspace-relative POSIX path; "." for the root
	Abs string // absolute path on disk
}

// MaxPathBytes is the longest path argument accepted: Linux's PATH_MAX.
// No longer path can name a file, and refusing it first keeps every later
// step (splitting, canonicalising, walking up to an existing parent, error
// messages) proportionate to a real path.
const MaxPathBytes = 4096

// Lexical applies the profile's lexical checks
// (docs/coding-tools.md#lexical-checks) and returns the cleaned relative path
// ("." for the root).
func Lexical(p string) (string, error) {
	if len(p) > MaxPathBytes {
		return "", Errorf(CodeInvalidArgument, map[string]any{"path": Abbrev(p), "bytes": len(p)},
			"invalid path: %d bytes is longer than the %d a path can have", len(p), MaxPathBytes)
	}
	if p == "" || strings.ContainsRune(p, 0) {
		return "", Errorf(CodeInvalidArgument, map[string]any{"path": p}, "invalid path: it must be a non-empty workspace-relative path without NUL bytes")
	}
	if strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\`) || isDrive(p) {
		return "", Errorf(CodeAbsolutePathDenied, map[string]any{"path": p}, "absolute path denied; use a workspace-relative path")
	}
	var parts []string
	for _, seg := range strings.Split(p, "/") {
		switch seg {
		case "", ".":
			continue
		case "..":
			return "", Errorf(CodePathOutsideWorkspace, map[string]any{"path": p}, "path escapes the workspace: '..' segments are denied")
		}
		parts = append(parts, seg)
	}
	if len(parts) == 0 {
		return ".", nil
	}
	return strings.Join(parts, "/"), nil
}

// Abbrev is s cut to its first 64 bytes (whole UTF-8 characters) with an
// ellipsis, for echoing an over-long argument.
func Abbrev(s string) string {
	const n = 64
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func isDrive(p string) bool {
	return len(p) >= 3 && ((p[0] >= 'a' && p[0] <= 'z') || (p[0] >= 'A' && p[0] <= 'Z')) && p[1] == ':' && (p[2] == '\\' || p[2] == '/')
}

// rel returns the workspace-relative POSIX form of a canonical absolute
// path, and whether it lies inside the root.
func (r *Root) rel(canon string) (string, bool) {
	if canon == r.Path {
		return ".", true
	}
	rel, err := filepath.Rel(r.Path, canon)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// Existing resolves a path that must exist
// (docs/coding-tools.md#existing-paths): missing is NOT_FOUND, a canonical form
// outside the root is SYMLINK_ESCAPE.
func (r *Root) Existing(p string) (Resolved, error) {
	clean, err := Lexical(p)
	if err != nil {
		return Resolved{}, err
	}
	joined := filepath.Join(r.Path, filepath.FromSlash(clean))
	canon, err := filepath.EvalSymlinks(joined)
	if err != nil {
		// Missing, or a dangling symlink (chain): where it would lead
		// decides between an escape and NOT_FOUND, so that a link to
		// the outside can neither be used nor probe what exists there.
		if end, lerr := resolveLenient(joined); lerr == nil && !r.inside(end) {
			return Resolved{}, symlinkEscape(p)
		}
		if errors.Is(err, fs.ErrNotExist) {
			return Resolved{}, Errorf(CodeNotFound, map[string]any{"path": clean}, "not found: %s", clean)
		}
		return Resolved{}, Errorf(CodeNotFound, map[string]any{"path": clean}, "cannot resolve %s: %v", clean, err)
	}
	rel, ok := r.rel(canon)
	if !ok {
		return Resolved{}, symlinkEscape(p)
	}
	return Resolved{Rel: rel, Abs: canon}, nil
}

func (r *Root) inside(canon string) bool {
	_, ok := r.rel(canon)
	return ok
}

// resolveLenient resolves an absolute path like filepath.EvalSymlinks,
// but from the first component that cannot be looked up (missing, not a
// directory, not searchable: the kernel cannot go through it either) the
// rest is taken lexically. A dangling symlink is so followed, through any
// chain of links, to where it ends. It fails only on a symlink loop or an
// unreadable link.
func resolveLenient(abs string) (string, error) {
	const maxLinks = 255
	sep := string(filepath.Separator)
	vol := filepath.VolumeName(abs)
	resolved := vol + sep
	todo := strings.Split(abs[len(vol):], sep)
	for links := 0; len(todo) > 0; {
		c := todo[0]
		todo = todo[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			resolved = filepath.Dir(resolved)
			continue
		}
		next := filepath.Join(resolved, c)
		fi, err := os.Lstat(next)
		if err != nil {
			return filepath.Join(append([]string{next}, todo...)...), nil
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			resolved = next
			continue
		}
		if links++; links > maxLinks {
			return "", fmt.Errorf("%s: too many levels of symbolic links", abs)
		}
		t, err := os.Readlink(next)
		if err != nil {
			return "", err
		}
		if filepath.IsAbs(t) {
			vol = filepath.VolumeName(t)
			resolved, t = vol+sep, t[len(vol):]
		}
		todo = append(strings.Split(t, sep), todo...)
	}
	return resolved, nil
}

func symlinkEscape(p string) error {
	return Errorf(CodeSymlinkEscape, map[string]any{"path": p}, "symlink escape denied: %s resolves outside the workspace", p)
}

// WriteTarget resolves a path that may not exist yet
// (docs/coding-tools.md#write-targets). The result's Abs is the lexical target
// under the canonical root (its parents may be missing); its nearest existing
// ancestor is inside the root.
func (r *Root) WriteTarget(p string) (Resolved, error) {
	clean, err := Lexical(p)
	if err != nil {
		return Resolved{}, err
	}
	if clean == "." {
		return Resolved{}, Errorf(CodeInvalidArgument, map[string]any{"path": p}, "invalid path: the workspace root is not a file")
	}
	target := filepath.Join(r.Path, filepath.FromSlash(clean))
	_, lerr := os.Lstat(target)
	exists := lerr == nil // a symlink counts, even a dangling one
	end, err := resolveLenient(target)
	if err != nil { // a symlink loop: nothing shows it stays inside
		if exists {
			return Resolved{}, Errorf(CodeSymlinkEscape, map[string]any{"path": p}, "symlink denied: %s cannot be resolved (%v)", p, err)
		}
		return Resolved{}, Errorf(CodePathOutsideWorkspace, map[string]any{"path": p}, "path escapes the workspace: %s cannot be resolved (%v)", p, err)
	}
	if !exists {
		// end is the canonical nearest existing ancestor (a dangling
		// link followed) with the missing rest appended.
		if !r.inside(end) {
			return Resolved{}, Errorf(CodePathOutsideWorkspace, map[string]any{"path": p}, "path escapes the workspace: %s", p)
		}
		return Resolved{Rel: clean, Abs: target}, nil
	}
	if !r.inside(end) {
		return Resolved{}, symlinkEscape(p)
	}
	// The parent directory chain must itself be inside (a symlinked
	// parent pointing out, whose entry links back in).
	if pc, err := resolveLenient(filepath.Dir(target)); err != nil || !r.inside(pc) {
		return Resolved{}, symlinkEscape(p)
	}
	return Resolved{Rel: clean, Abs: target}, nil
}

// Join is the absolute path of a relative POSIX path under the root,
// without checks; for paths the walkers produced themselves.
func (r *Root) Join(rel string) string {
	return filepath.Join(r.Path, filepath.FromSlash(path.Clean(rel)))
}
