//go:build linux

package search

import (
	"io"
	"sync/atomic"

	"golang.org/x/sys/unix"

	"github.com/sudocode/sudocode/internal/workspace"
)

// dirRef is an open directory, shared by the walker (which reads its
// entries and opens its subdirectories) and the jobs of its files; the
// last release closes it. It is a bare descriptor: a subdirectory is one
// openat of a name the directory listed, with O_NOFOLLOW, so it cannot
// lead out of the directory, which itself was opened through the
// workspace's os.Root. Open descriptors stay few: one per level being
// walked, one per directory with queued files.
type dirRef struct {
	fd   int
	refs atomic.Int32
}

// openTopDir opens the directory base of the workspace, anchored.
func openTopDir(r *workspace.Root, base string) (*dirRef, error) {
	f, err := r.FS.Open(base)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, unix.ENOTDIR
	}
	fd, err := unix.FcntlInt(f.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	return newDirRef(fd), nil
}

func newDirRef(fd int) *dirRef {
	d := &dirRef{fd: fd}
	d.refs.Store(1)
	return d
}

// child opens the subdirectory name that d listed.
func (d *dirRef) child(name string) (*dirRef, error) {
	for {
		fd, err := unix.Openat(d.fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		return newDirRef(fd), nil
	}
}

// entries are d's entries in path order.
func (d *dirRef) entries() ([]workspace.Dirent, error) { return workspace.ReadDirFDSorted(d.fd) }

func (d *dirRef) release() {
	if d.refs.Add(-1) == 0 {
		unix.Close(d.fd)
	}
}

// done is the walker's release: it no longer reads d.
func (d *dirRef) done() { d.release() }

// openInDir opens the regular file name in the directory d for reading
// with one openat on the directory's descriptor: a single path component
// with O_NOFOLLOW, so nothing outside the directory (which was itself
// opened through the workspace's os.Root) can be reached, not even through
// a symlink swapped in since the directory was read. It reports false for
// anything but a regular file. This is os.Root's own mechanism without
// its per-call costs (path splitting, the poller registration of an
// os.File), which matter when a search opens every file of a tree.
func openInDir(d *dirRef, name string) (io.ReadCloser, int64, bool) {
	var fd int
	var err error
	for {
		fd, err = unix.Openat(d.fd, name, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_NOCTTY, 0)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		return nil, 0, false
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		unix.Close(fd)
		return nil, 0, false
	}
	return rawFile(fd), st.Size, true
}

// rawFile is an open file descriptor read with plain system calls.
type rawFile int

func (f rawFile) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for {
		n, err := unix.Read(int(f), p)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return 0, err
		}
		if n == 0 {
			return 0, io.EOF
		}
		return n, nil
	}
}

func (f rawFile) Close() error { return unix.Close(int(f)) }
