//go:build linux

package workspace

import (
	"encoding/binary"
	"io"
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// readDirents reads a directory's entries with getdents64 on the file's
// descriptor, taking each type from d_type. (os.File.ReadDir on a
// directory opened through an os.Root lstat's every entry, which costs a
// syscall per file; only entries of a filesystem without d_type need one
// here.)
func readDirents(f *os.File) ([]dirent, error) {
	fd := int(f.Fd())
	buf := make([]byte, 32<<10)
	var out []dirent
	for {
		n, err := syscall.Getdents(fd, buf)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return out, err
		}
		if n <= 0 {
			return out, nil
		}
		for off := 0; off+19 <= n; {
			reclen := int(binary.NativeEndian.Uint16(buf[off+16:]))
			if reclen == 0 || off+reclen > n {
				break
			}
			typ := buf[off+18]
			name := buf[off+19 : off+reclen]
			for i, c := range name {
				if c == 0 {
					name = name[:i]
					break
				}
			}
			off += reclen
			if len(name) == 0 || string(name) == "." || string(name) == ".." {
				continue
			}
			d := dirent{name: string(name)}
			switch typ {
			case syscall.DT_REG:
			case syscall.DT_DIR:
				d.typ = fs.ModeDir
			case syscall.DT_LNK:
				d.typ = fs.ModeSymlink
			case syscall.DT_FIFO:
				d.typ = fs.ModeNamedPipe
			case syscall.DT_SOCK:
				d.typ = fs.ModeSocket
			case syscall.DT_CHR:
				d.typ = fs.ModeDevice | fs.ModeCharDevice
			case syscall.DT_BLK:
				d.typ = fs.ModeDevice
			default: // DT_UNKNOWN: ask the filesystem, without following
				var st unix.Stat_t
				if err := unix.Fstatat(fd, d.name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
					continue // vanished
				}
				d.typ = modeType(st.Mode)
			}
			out = append(out, d)
		}
	}
}

func modeType(m uint32) fs.FileMode {
	switch m & syscall.S_IFMT {
	case syscall.S_IFREG:
		return 0
	case syscall.S_IFDIR:
		return fs.ModeDir
	case syscall.S_IFLNK:
		return fs.ModeSymlink
	case syscall.S_IFIFO:
		return fs.ModeNamedPipe
	case syscall.S_IFSOCK:
		return fs.ModeSocket
	case syscall.S_IFCHR:
		return fs.ModeDevice | fs.ModeCharDevice
	}
	return fs.ModeDevice
}

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
