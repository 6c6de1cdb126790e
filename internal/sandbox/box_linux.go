package sandbox

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// boxRoot is where the supervisor builds the box's root: an empty tmpfs
// mounted over /tmp of its own mount namespace (the host's /tmp is
// untouched), after every path to bind has been opened.
const boxRoot = "/tmp"

// buildBox builds the box's root and enters it; the supervisor, uid 0 of
// its new user namespace, runs it before starting the command. The
// caller's working directory is kept.
func buildBox(cfg *boxConfig) error {
	cwd, err := os.Getwd()
	if err != nil {
		return fmt.Errorf("working directory: %w", err)
	}
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("making the mounts private: %w", err)
	}
	// Open every path first, refusing any symbolic link on the way: the
	// server checked canonical paths, and a path the command could have
	// changed since into a link elsewhere is not followed.
	fds := make([]int, len(cfg.Binds))
	seeds := map[string][]byte{}
	for i, b := range cfg.Binds {
		fds[i] = -1
		if b.Hide || b.Scratch {
			continue
		}
		fd, err := openNoLinks(b.Path)
		if err != nil {
			return fmt.Errorf("opening %s for the box: %w", b.Path, err)
		}
		fds[i] = fd
		if b.Seed {
			if seeds[b.Path], err = readSeed(fd); err != nil {
				return fmt.Errorf("copying %s into the box: %w", b.Path, err)
			}
		}
	}
	defer func() {
		for _, fd := range fds {
			if fd >= 0 {
				unix.Close(fd)
			}
		}
	}()
	if err := unix.Mount("tmpfs", boxRoot, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=0755"); err != nil {
		return fmt.Errorf("mounting the box's root: %w", err)
	}
	in := func(p string) string { return filepath.Join(boxRoot, p) }
	if err := boxSystem(in, cfg.Network); err != nil {
		return err
	}
	for _, l := range cfg.Links {
		if _, err := os.Lstat(in(l.Path)); err == nil {
			continue // inside a bound directory, where it is already
		}
		if err := os.MkdirAll(in(filepath.Dir(l.Path)), 0o755); err != nil {
			return err
		}
		if err := os.Symlink(l.Target, in(l.Path)); err != nil {
			return fmt.Errorf("link %s in the box: %w", l.Path, err)
		}
	}
	for i, b := range cfg.Binds {
		var err error
		switch {
		case b.Seed:
			err = os.WriteFile(in(b.Path), seeds[b.Path], 0o600)
		case b.Scratch:
			err = scratchInto(in(b.Path))
		default:
			err = bindInto(in(b.Path), fds[i], b)
		}
		if err != nil {
			return fmt.Errorf("binding %s into the box: %w", b.Path, err)
		}
	}
	if err := enterRoot(); err != nil {
		return err
	}
	if !cfg.Network {
		if err := loopbackUp(); err != nil {
			return fmt.Errorf("bringing up the box's loopback: %w", err)
		}
	}
	unix.Sethostname([]byte("sudocode-box"))
	if err := os.Chdir(cwd); err != nil {
		return fmt.Errorf("the working directory %s is not in the box: %w", cwd, err)
	}
	return nil
}

// openNoLinks opens path as an O_PATH descriptor, failing if any of its
// components is a symbolic link.
func openNoLinks(path string) (int, error) {
	fd, err := unix.Openat2(unix.AT_FDCWD, path, &unix.OpenHow{
		Flags:   unix.O_PATH | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	})
	if errors.Is(err, unix.ENOSYS) { // before Linux 5.6: the last component only
		return unix.Open(path, unix.O_PATH|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
	}
	return fd, err
}

// boxSystem makes what every box has: /proc of its PID namespace with
// the kernel's knobs read-only, /dev with the ordinary devices, a fresh
// /tmp and /dev/shm.
func boxSystem(in func(string) string, network bool) error {
	for _, d := range []string{"/proc", "/dev", "/tmp"} {
		if err := os.Mkdir(in(d), 0o755); err != nil {
			return err
		}
	}
	if err := unix.Mount("proc", in("/proc"), "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("mounting the box's /proc: %w", err)
	}
	for _, d := range []string{"sys", "sysrq-trigger", "irq", "bus"} {
		p := in("/proc/" + d)
		if _, err := os.Lstat(p); err != nil {
			continue
		}
		if err := unix.Mount(p, p, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("covering /proc/%s: %w", d, err)
		}
		if err := mountReadOnly(p); err != nil {
			return fmt.Errorf("covering /proc/%s: %w", d, err)
		}
	}
	if err := unix.Mount("tmpfs", in("/tmp"), "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=1777"); err != nil {
		return fmt.Errorf("mounting the box's /tmp: %w", err)
	}
	if err := unix.Mount("tmpfs", in("/dev"), "tmpfs", unix.MS_NOSUID|unix.MS_NOEXEC, "mode=0755"); err != nil {
		return fmt.Errorf("mounting the box's /dev: %w", err)
	}
	for _, d := range []string{"null", "zero", "full", "random", "urandom", "tty"} {
		host, box := "/dev/"+d, in("/dev/"+d)
		if _, err := os.Stat(host); err != nil {
			continue
		}
		if err := os.WriteFile(box, nil, 0o666); err != nil {
			return err
		}
		if err := unix.Mount(host, box, "", unix.MS_BIND, ""); err != nil {
			return fmt.Errorf("binding %s into the box: %w", host, err)
		}
	}
	for name, target := range map[string]string{"fd": "/proc/self/fd", "stdin": "/proc/self/fd/0",
		"stdout": "/proc/self/fd/1", "stderr": "/proc/self/fd/2", "ptmx": "pts/ptmx"} {
		if err := os.Symlink(target, in("/dev/"+name)); err != nil {
			return err
		}
	}
	for _, d := range []string{"/dev/pts", "/dev/shm"} {
		if err := os.Mkdir(in(d), 0o755); err != nil {
			return err
		}
	}
	// Pseudo-terminals of the box's own (a command that opens one, such
	// as script or a REPL's test): a kernel that refuses the mount leaves
	// the directory empty.
	unix.Mount("devpts", in("/dev/pts"), "devpts", unix.MS_NOSUID|unix.MS_NOEXEC, "newinstance,ptmxmode=0666,mode=0620")
	if err := unix.Mount("tmpfs", in("/dev/shm"), "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=1777"); err != nil {
		return fmt.Errorf("mounting the box's /dev/shm: %w", err)
	}
	return nil
}

// bindInto binds the opened path fd at dst (creating the mount point),
// read-only unless b.Write; a hidden path gets an empty read-only
// directory or file instead.
func bindInto(dst string, fd int, b bind) error {
	var st unix.Stat_t
	isDir := true
	if b.Hide {
		if err := unix.Lstat(dst, &st); err != nil {
			return nil // not there: nothing to hide
		}
		isDir = st.Mode&unix.S_IFMT == unix.S_IFDIR
	} else {
		if err := unix.Fstat(fd, &st); err != nil {
			return err
		}
		isDir = st.Mode&unix.S_IFMT == unix.S_IFDIR
	}
	if err := mountPoint(dst, isDir); err != nil {
		return err
	}
	switch {
	case b.Hide && isDir:
		if err := unix.Mount("tmpfs", dst, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC|unix.MS_RDONLY, "mode=0500"); err != nil {
			return err
		}
		return nil
	case b.Hide:
		return unix.Mount("/dev/null", dst, "", unix.MS_BIND, "")
	}
	src := fmt.Sprintf("/proc/self/fd/%d", fd)
	if err := unix.Mount(src, dst, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return err
	}
	if b.Write {
		return setAttr(dst, unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV, false)
	}
	return mountReadOnly(dst)
}

// maxSeed bounds a file copied into the box.
const maxSeed = 16 << 20

// readSeed reads the file open as the O_PATH descriptor fd.
func readSeed(fd int) ([]byte, error) {
	f, err := os.Open(fmt.Sprintf("/proc/self/fd/%d", fd))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxSeed+1))
	if err == nil && len(b) > maxSeed {
		err = fmt.Errorf("larger than %d bytes", maxSeed)
	}
	return b, err
}

// scratchInto mounts an empty writable tmpfs, the box's own, at dst.
func scratchInto(dst string) error {
	if err := mountPoint(dst, true); err != nil {
		return err
	}
	return unix.Mount("tmpfs", dst, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=0700")
}

// mountPoint makes sure a directory (or an empty file) is at p, creating
// its parents; one already there (inside a bound directory) is used.
func mountPoint(p string, dir bool) error {
	if _, err := os.Lstat(p); err == nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	if dir {
		return os.Mkdir(p, 0o755)
	}
	return os.WriteFile(p, nil, 0o644)
}

// mountReadOnly makes the mount at p and the mounts below it read-only, set
// no-suid and no-dev.
func mountReadOnly(p string) error {
	return setAttr(p, unix.MOUNT_ATTR_RDONLY|unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV, true)
}

// setAttr sets mount attributes on the mount at p and those below it,
// with mount_setattr (Linux 5.12), else by remounting the top one with
// the flags it has (a user namespace may not clear a locked one).
func setAttr(p string, attr uint64, ro bool) error {
	err := unix.MountSetattr(unix.AT_FDCWD, p, unix.AT_RECURSIVE, &unix.MountAttr{Attr_set: attr})
	if !errors.Is(err, unix.ENOSYS) {
		return err
	}
	var sfs unix.Statfs_t
	if err := unix.Statfs(p, &sfs); err != nil {
		return err
	}
	flags := uintptr(unix.MS_REMOUNT|unix.MS_BIND|unix.MS_NOSUID|unix.MS_NODEV) | uintptr(sfs.Flags)&(unix.MS_NOEXEC|unix.MS_RDONLY|unix.MS_NOATIME|unix.MS_NODIRATIME|unix.MS_RELATIME)
	if ro {
		flags |= unix.MS_RDONLY
	}
	return unix.Mount("", p, "", flags, "")
}

// enterRoot makes the built root the process's root, detaches the host's
// tree from the namespace and makes the root itself read-only.
func enterRoot() error {
	if err := os.Chdir(boxRoot); err != nil {
		return err
	}
	if err := unix.PivotRoot(".", "."); err != nil {
		return fmt.Errorf("pivot_root: %w", err)
	}
	if err := unix.Unmount(".", unix.MNT_DETACH); err != nil {
		return fmt.Errorf("detaching the host's tree: %w", err)
	}
	if err := os.Chdir("/"); err != nil {
		return err
	}
	err := unix.MountSetattr(unix.AT_FDCWD, "/", 0, &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY})
	if errors.Is(err, unix.ENOSYS) {
		err = unix.Mount("", "/", "", unix.MS_REMOUNT|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV, "")
	}
	if err != nil {
		return fmt.Errorf("making the box's root read-only: %w", err)
	}
	return nil
}

// loopbackUp brings up the loopback interface of the box's own network
// namespace: a command may serve and reach itself on 127.0.0.1, and
// nothing else.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	ifr.SetUint16(unix.IFF_UP | unix.IFF_LOOPBACK | unix.IFF_RUNNING)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}

// commandAttr is how the supervisor starts the command's first stage in
// the box: in a user namespace nested in its own, as cfg's uid and gid,
// mapped to its own root, so the command holds no capability anywhere.
func commandAttr(cfg *boxConfig) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{
		Cloneflags:                 syscall.CLONE_NEWUSER,
		UidMappings:                []syscall.SysProcIDMap{{ContainerID: cfg.UID, HostID: 0, Size: 1}},
		GidMappings:                []syscall.SysProcIDMap{{ContainerID: cfg.GID, HostID: 0, Size: 1}},
		GidMappingsEnableSetgroups: false,
	}
}
