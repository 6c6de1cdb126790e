//go:build !linux

package search

import (
	"io"
	"os"
	"sync/atomic"

	"github.com/sudocode/sudocode/internal/workspace"
)

// dirRef is an open directory, shared by the walker (which reads its
// entries and opens its subdirectories through its os.Root) and the jobs
// of its files, which open them through the same os.Root; the last
// release closes it.
type dirRef struct {
	root *os.Root
	refs atomic.Int32
}

// openTopDir opens the directory base of the workspace, anchored.
func openTopDir(r *workspace.Root, base string) (*dirRef, error) {
	return rootDirRef(r.FS.OpenRoot(base))
}

func rootDirRef(root *os.Root, err error) (*dirRef, error) {
	if err != nil {
		return nil, err
	}
	d := &dirRef{root: root}
	d.refs.Store(1)
	return d, nil
}

// child opens the subdirectory name that d listed.
func (d *dirRef) child(name string) (*dirRef, error) { return rootDirRef(d.root.OpenRoot(name)) }

// entries are d's entries in path order.
func (d *dirRef) entries() ([]workspace.Dirent, error) {
	f, err := d.root.Open(".")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return workspace.ReadDirFileSorted(f)
}

func (d *dirRef) release() {
	if d.refs.Add(-1) == 0 {
		d.root.Close()
	}
}

// done is the walker's release: it no longer reads d.
func (d *dirRef) done() { d.release() }

// openInDir opens the regular file name in the directory d for reading,
// through its anchored os.Root.
func openInDir(d *dirRef, name string) (io.ReadCloser, int64, bool) {
	f, err := d.root.OpenFile(name, os.O_RDONLY, 0)
	if err != nil {
		return nil, 0, false
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, 0, false
	}
	return f, fi.Size(), true
}
