package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

const unavailableReason = "the server cannot re-execute its own binary to set it up"

// helperExe is the binary to run as the helper: this one, by
// /proc/self/exe (which works even if the file was replaced since), or by
// its path; "" where there is none.
var helperExe = sync.OnceValue(func() string {
	if _, err := os.Stat("/proc/self/exe"); err == nil {
		return "/proc/self/exe"
	}
	if exe, err := os.Executable(); err == nil {
		return exe
	}
	return ""
})

// lifeline is the read end of the pipe whose write end this process
// holds until it dies: every helper gets the read end, and end of file
// tells it the server is gone. The write end is a bare descriptor, never
// wrapped in an *os.File, whose finalizer would close it once nothing
// refers to it; the kernel closes it when this process exits.
var lifeline = sync.OnceValues(func() (*os.File, error) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(p[0]), "sandbox-lifeline"), nil
})

// nsMode is how helpers start: in a new PID namespace (with a user
// namespace for an unprivileged server), or in none where the kernel
// refuses both; probed once, by starting the helper in its probe mode.
var nsMode = sync.OnceValue(func() int {
	modes := []int{nsPID, nsUserPID}
	if os.Geteuid() != 0 {
		modes = []int{nsUserPID}
	}
	exe := helperExe()
	for _, m := range modes {
		c := exec.Command(exe)
		c.Env = append([]string{helperEnv + "=" + probeMagic}, raceEnv...)
		c.SysProcAttr = namespaceAttr(nil, m)
		if c.Run() == nil {
			return m
		}
	}
	return nsNone
})

// forceNone makes helpers start without a PID namespace (the tests of the
// fallback set it before their first command).
var forceNone bool

const (
	nsNone = iota
	nsPID
	nsUserPID
)

// namespaceAttr is base (copied) with the clone flags of mode.
func namespaceAttr(base *syscall.SysProcAttr, mode int) *syscall.SysProcAttr {
	attr := &syscall.SysProcAttr{}
	if base != nil {
		*attr = *base
	}
	switch mode {
	case nsPID: // a mount namespace too, for the PID namespace's own /proc
		attr.Cloneflags |= syscall.CLONE_NEWPID | syscall.CLONE_NEWNS
	case nsUserPID:
		attr.Cloneflags |= syscall.CLONE_NEWPID | syscall.CLONE_NEWNS | syscall.CLONE_NEWUSER
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: os.Geteuid(), HostID: os.Geteuid(), Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getegid(), HostID: os.Getegid(), Size: 1}}
		attr.GidMappingsEnableSetgroups = false
	}
	return attr
}

// startContained starts the helper in the best namespace the kernel
// allows, or in the box's namespaces.
func startContained(c *exec.Cmd, box *boxConfig) error {
	if box != nil {
		c.SysProcAttr = boxAttr(c.SysProcAttr, box)
		return c.Start()
	}
	mode := nsNone
	if !forceNone {
		mode = nsMode()
	}
	c.SysProcAttr = namespaceAttr(c.SysProcAttr, mode)
	return c.Start()
}

// boxAttr is base (copied) with the box's namespaces: the supervisor is
// root of a new user namespace (mapped to the server's own uid, the only
// one an unprivileged process may map), which owns new mount, PID, IPC,
// UTS and, unless the network is granted, network namespaces.
func boxAttr(base *syscall.SysProcAttr, box *boxConfig) *syscall.SysProcAttr {
	attr := &syscall.SysProcAttr{}
	if base != nil {
		*attr = *base
	}
	attr.Cloneflags |= syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID | syscall.CLONE_NEWIPC | syscall.CLONE_NEWUTS
	if box == nil || !box.Network {
		attr.Cloneflags |= syscall.CLONE_NEWNET
	}
	attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Geteuid(), Size: 1}}
	attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getegid(), Size: 1}}
	attr.GidMappingsEnableSetgroups = false
	return attr
}

// boxUID is the uid (and gid) a boxed command runs as: the server's own,
// so that files keep their owner and tools that compare owners (git's
// safe.directory) agree; a server running as root gets 1000 instead, an
// ordinary user's, which holds no capability in the box.
func boxUID() (uid, gid int) {
	if os.Geteuid() == 0 {
		return 1000, 1000
	}
	return os.Geteuid(), os.Getegid()
}

// newBox is the box of p, or nil and the reason the kernel cannot build
// one.
func newBox(p Policy) (*boxConfig, string) {
	if p.NoBox {
		return nil, "disabled"
	}
	if reason := boxProbe(); reason != "" {
		return nil, reason
	}
	binds, links := planBox(p)
	uid, gid := boxUID()
	if p.RootInBox {
		uid, gid = 0, 0
	}
	return &boxConfig{Binds: binds, Links: links, Network: p.Network, UID: uid, GID: gid}, ""
}

// boxProbe starts a helper in the box's namespaces once, in its probe
// mode, which mounts what every box mounts; "" when that works, else why
// not and how to fix it.
var boxProbe = sync.OnceValue(func() string {
	exe := helperExe()
	if exe == "" {
		return unavailableReason
	}
	c := exec.Command(exe)
	c.Env = append([]string{helperEnv + "=" + probeBoxMagic}, raceEnv...)
	c.SysProcAttr = boxAttr(nil, nil)
	out, err := c.CombinedOutput()
	if err == nil {
		return ""
	}
	if len(out) > 0 {
		return strings.TrimSpace(string(out))
	}
	return "the kernel refused new namespaces (" + err.Error() + ")" + userNSHint()
})

// userNSHint says how to let unprivileged processes create user
// namespaces, by what refuses them.
func userNSHint() string {
	read := func(p string) string { b, _ := os.ReadFile(p); return strings.TrimSpace(string(b)) }
	switch {
	case read("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") == "1":
		return ": AppArmor restricts unprivileged user namespaces (Ubuntu 23.10 and later); allow them with " +
			"`sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0`, or give sudocode an AppArmor profile with `userns,`"
	case read("/proc/sys/kernel/unprivileged_userns_clone") == "0":
		return ": unprivileged user namespaces are off; `sudo sysctl -w kernel.unprivileged_userns_clone=1`"
	case read("/proc/sys/user/max_user_namespaces") == "0":
		return ": user.max_user_namespaces is 0; `sudo sysctl -w user.max_user_namespaces=15000`"
	}
	return ": in a container, allow user namespaces (Docker: --security-opt seccomp=unconfined --security-opt apparmor=unconfined)"
}

// probeBox is the helper's box probe mode: the mounts every box makes.
func probeBox() int {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		fmt.Println("making mounts private in a new mount namespace failed:", err)
		return 1
	}
	if err := unix.Mount("tmpfs", boxRoot, "tmpfs", 0, "mode=0755"); err != nil {
		fmt.Println("mounting a tmpfs in a new user namespace failed:", err)
		return 1
	}
	if err := os.Mkdir(boxRoot+"/proc", 0o755); err != nil {
		fmt.Println(err)
		return 1
	}
	if err := unix.Mount("proc", boxRoot+"/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		fmt.Println("mounting /proc for a new PID namespace failed (the container masks parts of the host's /proc?):", err)
		return 1
	}
	return 0
}

// BoxUnavailable is why the kernel refuses the sealed box, with how to
// allow it; "" when boxes can be built. Servers say it once at start.
func BoxUnavailable() string { return boxProbe() }
