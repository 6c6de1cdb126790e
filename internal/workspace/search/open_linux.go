//go:build linux

package search

import (
	"io"

	"golang.org/x/sys/unix"
)

// filesOpenByFD: openInDir needs only the directory's descriptor, not its
// os.Root.
const filesOpenByFD = true

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
