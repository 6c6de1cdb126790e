//go:build linux

package workspace

import (
	"encoding/binary"
	"io/fs"
	"os"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// readDirents reads a directory's entries with getdents64 on the file's
// descriptor, taking each type from d_type. (os.File.ReadDir on a
// directory opened through an os.Root lstat's every entry, which costs a
// syscall per file; only entries of a filesystem without d_type need one
// here.)
func readDirents(f *os.File) ([]Dirent, error) { return readDirentsFD(int(f.Fd())) }

// ReadDirFDSorted is ReadDirFileSorted on a directory's descriptor, for a
// walker that opens each directory with one openat of its own (an
// os.File would cost more system calls than the read: Fd puts the file
// back in blocking mode).
func ReadDirFDSorted(fd int) ([]Dirent, error) {
	out, err := readDirentsFD(fd)
	return sortDirents(out, err)
}

// direntBufs are getdents buffers, kept between directories: a walk of a
// large tree reads thousands.
var direntBufs = sync.Pool{New: func() any { return new([32 << 10]byte) }}

func readDirentsFD(fd int) ([]Dirent, error) {
	b := direntBufs.Get().(*[32 << 10]byte)
	defer direntBufs.Put(b)
	buf := b[:]
	var out []Dirent
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
			d := Dirent{Name: string(name)}
			switch typ {
			case syscall.DT_REG:
			case syscall.DT_DIR:
				d.Type = fs.ModeDir
			case syscall.DT_LNK:
				d.Type = fs.ModeSymlink
			case syscall.DT_FIFO:
				d.Type = fs.ModeNamedPipe
			case syscall.DT_SOCK:
				d.Type = fs.ModeSocket
			case syscall.DT_CHR:
				d.Type = fs.ModeDevice | fs.ModeCharDevice
			case syscall.DT_BLK:
				d.Type = fs.ModeDevice
			default: // DT_UNKNOWN: ask the filesystem, without following
				var st unix.Stat_t
				if err := unix.Fstatat(fd, d.Name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
					continue // vanished
				}
				d.Type = modeType(st.Mode)
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
