package sandbox

import (
	"errors"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Landlock's TCP rules apply to TCP sockets, and a Multipath TCP socket
// (IPPROTO_MPTCP) connects all the same without them: where the network
// is denied, a seccomp filter on the helper's thread (inherited by the
// command) makes creating one fail with EPROTONOSUPPORT, which programs
// answer by falling back to plain TCP, which Landlock then refuses.
// Syscalls of another ABI than the native one (i386's socketcall, x32)
// fail with ENOSYS, so the filter cannot be gone around by a 32-bit
// binary.

const ipprotoMPTCP = 262

// nativeArch is the audit architecture of this build; 0 where the
// filter is not built.
func nativeArch() uint32 {
	switch runtime.GOARCH {
	case "amd64":
		return unix.AUDIT_ARCH_X86_64
	case "arm64":
		return unix.AUDIT_ARCH_AARCH64
	}
	return 0
}

// denyMPTCP installs the filter on the calling thread (no_new_privs is
// already set).
func denyMPTCP() error {
	arch := nativeArch()
	if arch == 0 {
		return errors.New("no seccomp filter for " + runtime.GOARCH)
	}
	const (
		archOff  = 4
		nrOff    = 0
		arg2Off  = 16 + 2*8 // args[2], low 32 bits (little endian)
		x32Bit   = 0x40000000
		retAllow = unix.SECCOMP_RET_ALLOW
	)
	ld := func(off uint32) unix.SockFilter {
		return unix.SockFilter{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: off}
	}
	jeq := func(k uint32, jt, jf uint8) unix.SockFilter {
		return unix.SockFilter{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, K: k, Jt: jt, Jf: jf}
	}
	jge := func(k uint32, jt, jf uint8) unix.SockFilter {
		return unix.SockFilter{Code: unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K, K: k, Jt: jt, Jf: jf}
	}
	ret := func(k uint32) unix.SockFilter { return unix.SockFilter{Code: unix.BPF_RET | unix.BPF_K, K: k} }
	prog := []unix.SockFilter{
		/* 0 */ ld(archOff),
		/* 1 */ jeq(arch, 0, 7), // foreign ABI → 9
		/* 2 */ ld(nrOff),
		/* 3 */ jge(x32Bit, 5, 0), // x32 → 9
		/* 4 */ jeq(uint32(unix.SYS_SOCKET), 0, 2), // not socket → 7
		/* 5 */ ld(arg2Off),
		/* 6 */ jeq(ipprotoMPTCP, 1, 0), // MPTCP → 8
		/* 7 */ ret(retAllow),
		/* 8 */ ret(unix.SECCOMP_RET_ERRNO | uint32(unix.EPROTONOSUPPORT)),
		/* 9 */ ret(unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)),
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	return unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&fprog)), 0, 0)
}
