package sandbox

import (
	"os"
	"os/exec"
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
// allows.
func startContained(c *exec.Cmd) error {
	mode := nsNone
	if !forceNone {
		mode = nsMode()
	}
	c.SysProcAttr = namespaceAttr(c.SysProcAttr, mode)
	return c.Start()
}
