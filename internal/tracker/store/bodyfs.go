package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/sudocode/sudocode/internal/fault"
)

// bodies reads and writes the spec bodies of one tracker directory. Every
// access goes through an os.Root opened at the project (the tracker
// directory's parent), so that no path, however a record or a symbolic
// link spells it, reaches a file outside; and every path is resolved link
// by link first, so that the file finally reached obeys the body rule too
// (a link may not lead into .git, or to a file that is not markdown).
type bodies struct {
	root  *os.Root
	dir   string   // the tracker directory's name in the project, e.g. .sudocode
	specs *os.File // the tracker's specs directory, once stat opened it (nil if it is not a plain directory)
	tried bool     // stat tried to open specs
}

// openBodies opens the bodies of the tracker directory dir.
func openBodies(dir string) (*bodies, error) {
	root, err := os.OpenRoot(filepath.Dir(dir))
	if err != nil {
		return nil, fault.Wrap(fault.Unavailable, err, "cannot open the project")
	}
	return &bodies{root: root, dir: filepath.Base(dir)}, nil
}

func (b *bodies) Close() {
	if b.specs != nil {
		b.specs.Close()
	}
	b.root.Close()
}

// maxLinks bounds the symbolic links followed for one body, as the kernel does.
const maxLinks = 40

// resolve returns the project-relative path of the file that body fp
// names once every symbolic link on the way is followed, or a refusal
// (invalid_argument) when the way leaves the project, enters .git, or
// ends at a file that is not markdown. Parts that do not exist yet are
// taken as they are: a write creates them as plain directories.
func (b *bodies) resolve(fp string) (string, error) {
	pending := strings.Split(path.Join(b.dir, fp), "/")
	var real []string
	for links := 0; len(pending) > 0; {
		c := pending[0]
		pending = pending[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			if len(real) == 0 {
				return "", refused(fp, "it leads outside the project")
			}
			real = real[:len(real)-1]
			continue
		}
		if isDotGit(c) {
			return "", refused(fp, "it leads into a .git directory")
		}
		next := path.Join(append(slices.Clone(real), c)...)
		fi, err := b.root.Lstat(next)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", fault.Wrap(fault.Unavailable, err, "cannot read "+fp)
		}
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			real = append(real, c)
			continue
		}
		if links++; links > maxLinks {
			return "", refused(fp, "it goes through too many symbolic links")
		}
		target, err := b.root.Readlink(next)
		if err != nil {
			return "", fault.Wrap(fault.Unavailable, err, "cannot read "+fp)
		}
		target = filepath.ToSlash(target)
		if path.IsAbs(target) || filepath.IsAbs(target) {
			return "", refused(fp, fmt.Sprintf("%s is a symbolic link to an absolute path", next))
		}
		pending = append(strings.Split(target, "/"), pending...)
	}
	rel := strings.Join(real, "/")
	if why := checkBodyPath(rel, true); why != "" {
		return "", refused(fp, "it leads to "+rel+": "+why)
	}
	return rel, nil
}

func refused(fp, why string) error {
	return fault.New(fault.Invalid, "spec body %s refused: %s", fp, why).
		WithHint(bodyHint + "; fix the record's file_path in specs.jsonl, or the symbolic link")
}

// read returns body fp's content; a body that does not exist reads as nil.
func (b *bodies) read(fp string) ([]byte, error) {
	rel, err := b.resolve(fp)
	if err != nil {
		return nil, err
	}
	data, err := b.root.ReadFile(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fault.Wrap(fault.Unavailable, err, "cannot read "+fp)
	}
	if data == nil {
		data = []byte{} // an empty body is there: only an absent one is nil
	}
	return data, nil
}

// write replaces body fp with data, atomically.
func (b *bodies) write(fp string, data []byte) error {
	rel, err := b.resolve(fp)
	if err != nil {
		return err
	}
	if err := b.root.MkdirAll(path.Dir(rel), 0o755); err != nil {
		return fault.Wrap(fault.Unavailable, err, "cannot write "+fp)
	}
	if err := writeAtomicAt(b.root, rel, func(f *os.File) error {
		_, err := f.Write(data)
		return err
	}); err != nil {
		return fault.Wrap(fault.Unavailable, err, "cannot write "+fp)
	}
	return nil
}

// exists reports whether body fp, or the file it leads to, is there.
func (b *bodies) exists(fp string) (bool, error) {
	rel, err := b.resolve(fp)
	if err != nil {
		return false, err
	}
	for _, p := range []string{path.Join(b.dir, fp), rel} {
		if _, err := b.root.Lstat(p); err == nil {
			return true, nil
		}
	}
	return false, nil
}

// stat identifies body fp's version cheaply (see fileStat); a refused
// body has a stat of its own, so that the cache records it and moves on.
func (b *bodies) stat(fp string) string {
	if st, ok := b.statPlain(fp); ok {
		return st
	}
	rel, err := b.resolve(fp)
	if err != nil {
		return "refused"
	}
	fi, err := b.root.Stat(rel)
	if err != nil {
		return "absent"
	}
	return statOf(fi)
}

// statPlain is stat for the usual body, a plain markdown file right in
// the tracker's specs directory with no link on the way: one fstatat in
// that directory instead of resolving each part of the path (a command
// stats every body that has feedback). ok false: take the long way.
func (b *bodies) statPlain(fp string) (string, bool) {
	name, ok := strings.CutPrefix(fp, SpecsDir+"/")
	if !ok || name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`) || checkBodyPath(path.Join(b.dir, fp), true) != "" {
		return "", false
	}
	if !b.tried {
		b.tried = true
		if b.plainDir(b.dir) && b.plainDir(path.Join(b.dir, SpecsDir)) {
			b.specs, _ = b.root.Open(path.Join(b.dir, SpecsDir))
		}
	}
	if b.specs == nil {
		return "", false
	}
	st, ok := statRegular(b.specs, name)
	if !ok {
		return "", false
	}
	return strconv.FormatInt(st.size, 10) + ":" + strconv.FormatInt(st.mtime, 10), true
}

// plainDir reports whether p is a directory, not a link to one.
func (b *bodies) plainDir(p string) bool {
	fi, err := b.root.Lstat(p)
	return err == nil && fi.IsDir()
}

// readBody reads one body of r (see bodies.read).
func (r *Repo) readBody(fp string) ([]byte, error) {
	b, err := openBodies(r.Dir)
	if err != nil {
		return nil, err
	}
	defer b.Close()
	return b.read(fp)
}
