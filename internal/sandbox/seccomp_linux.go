package sandbox

import (
	"errors"
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The seccomp filter refuses what namespaces and Landlock do not cover:
//   - packet, raw and other link-level or host-reaching sockets
//     (AF_PACKET, AF_VSOCK, which no network namespace isolates, AF_KEY,
//     raw IP), and Multipath TCP, which Landlock's TCP rules do not see;
//   - TCP Fast Open (MSG_FASTOPEN on sendto/sendmsg/sendmmsg, and the
//     TCP_FASTOPEN socket options): a connect Landlock does not see;
//   - new namespaces of any kind (clone, unshare, setns; clone3, whose
//     flags a filter cannot read, fails with ENOSYS and libc falls back
//     to clone): a user namespace inside would give the command
//     capabilities again;
//   - the kernel keyring, bpf, and io_uring, whose operations bypass
//     this filter;
//   - with the network denied and no network namespace (the fallback
//     walls), UDP, which Landlock cannot restrict.
//
// Syscalls of another ABI than the native one (i386, x32) fail with
// ENOSYS, so the filter cannot be gone around by a 32-bit binary.

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

// filterOptions vary the filter by where the command runs.
type filterOptions struct {
	denyUDP     bool // no network namespace and the network denied
	allowUserNS bool // new namespaces allowed (Policy.UserNamespaces)
}

const (
	msgFastOpen        = 0x20000000
	tcpFastOpen        = 23
	tcpFastOpenConnect = 30
	ipprotoMPTCP       = 262
	nsFlags            = unix.CLONE_NEWNS | unix.CLONE_NEWCGROUP | unix.CLONE_NEWUTS | unix.CLONE_NEWIPC |
		unix.CLONE_NEWUSER | unix.CLONE_NEWPID | unix.CLONE_NEWNET | unix.CLONE_NEWTIME
)

// installFilter installs the filter on the calling thread (no_new_privs
// is already set); the command inherits it.
func installFilter(o filterOptions) error {
	prog, err := buildFilter(o)
	if err != nil {
		return err
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	return unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&fprog)), 0, 0)
}

func errno(e unix.Errno) uint32 { return unix.SECCOMP_RET_ERRNO | uint32(e) }

// buildFilter assembles the filter's program.
func buildFilter(o filterOptions) ([]unix.SockFilter, error) {
	arch := nativeArch()
	if arch == 0 {
		return nil, errors.New("no seccomp filter for " + runtime.GOARCH)
	}
	const x32Bit = 0x40000000
	var a bpfAsm
	a.ld(4) // arch
	a.jeq(arch, "", "enosys")
	a.ld(0) // nr
	a.jge(x32Bit, "enosys", "")
	rules := []struct {
		nr    uintptr
		label string
	}{
		{unix.SYS_SOCKET, "socket"},
		{unix.SYS_SENDTO, "flags3"}, {unix.SYS_SENDMMSG, "flags3"}, {unix.SYS_SENDMSG, "flags2"},
		{unix.SYS_SETSOCKOPT, "setsockopt"},
		{unix.SYS_CLONE, "ns0"}, {unix.SYS_UNSHARE, "ns0"}, {unix.SYS_SETNS, "eperm"},
		{unix.SYS_CLONE3, "enosys"},
		{unix.SYS_KEYCTL, "eperm"}, {unix.SYS_ADD_KEY, "eperm"}, {unix.SYS_REQUEST_KEY, "eperm"},
		{unix.SYS_BPF, "eperm"},
		{unix.SYS_IO_URING_SETUP, "enosys"}, {unix.SYS_IO_URING_ENTER, "enosys"}, {unix.SYS_IO_URING_REGISTER, "enosys"},
	}
	for _, r := range rules {
		if o.allowUserNS && (r.label == "ns0" || r.nr == unix.SYS_CLONE3) {
			continue
		}
		a.jeq(uint32(r.nr), r.label, "")
	}
	a.ret(unix.SECCOMP_RET_ALLOW)

	a.label("socket")
	a.ldArg(0) // domain
	for _, fam := range []uint32{unix.AF_PACKET, unix.AF_VSOCK, unix.AF_KEY, unix.AF_BLUETOOTH} {
		a.jeq(fam, "eafnosupport", "")
	}
	a.jeq(unix.AF_INET, "inet", "")
	a.jeq(unix.AF_INET6, "inet", "")
	a.ret(unix.SECCOMP_RET_ALLOW)
	a.label("inet")
	a.ldArg(1) // type, without SOCK_NONBLOCK and SOCK_CLOEXEC
	a.and(0xf)
	a.jeq(unix.SOCK_RAW, "eperm", "")
	if o.denyUDP {
		a.jeq(unix.SOCK_DGRAM, "eacces", "")
	}
	a.ldArg(2) // protocol
	a.jeq(ipprotoMPTCP, "eprotonosupport", "")
	a.ret(unix.SECCOMP_RET_ALLOW)

	a.label("flags3")
	a.ldArg(3)
	a.jset(msgFastOpen, "eopnotsupp", "")
	a.ret(unix.SECCOMP_RET_ALLOW)
	a.label("flags2")
	a.ldArg(2)
	a.jset(msgFastOpen, "eopnotsupp", "")
	a.ret(unix.SECCOMP_RET_ALLOW)

	a.label("setsockopt")
	a.ldArg(1) // level
	a.jeq(unix.IPPROTO_TCP, "", "allow")
	a.ldArg(2) // option
	a.jeq(tcpFastOpen, "eopnotsupp", "")
	a.jeq(tcpFastOpenConnect, "eopnotsupp", "")
	a.label("allow")
	a.ret(unix.SECCOMP_RET_ALLOW)

	a.label("ns0")
	a.ldArg(0)
	a.jset(nsFlags, "eperm", "")
	a.ret(unix.SECCOMP_RET_ALLOW)

	for _, r := range []struct {
		label string
		e     unix.Errno
	}{{"eperm", unix.EPERM}, {"eacces", unix.EACCES}, {"enosys", unix.ENOSYS},
		{"eafnosupport", unix.EAFNOSUPPORT}, {"eprotonosupport", unix.EPROTONOSUPPORT}, {"eopnotsupp", unix.EOPNOTSUPP}} {
		a.label(r.label)
		a.ret(errno(r.e))
	}
	return a.assemble()
}

// bpfAsm assembles a classic BPF program with jumps to named labels ("":
// the next instruction).
type bpfAsm struct {
	prog   []unix.SockFilter
	jumps  []bpfJump
	labels map[string]int
}

type bpfJump struct {
	at     int
	tt, ff string
}

func (a *bpfAsm) emit(f unix.SockFilter) { a.prog = append(a.prog, f) }

func (a *bpfAsm) ld(off uint32) {
	a.emit(unix.SockFilter{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: off})
}

// ldArg loads the low 32 bits of the syscall's argument i (little
// endian: amd64 and arm64).
func (a *bpfAsm) ldArg(i uint32) { a.ld(16 + 8*i) }

func (a *bpfAsm) and(k uint32) {
	a.emit(unix.SockFilter{Code: unix.BPF_ALU | unix.BPF_AND | unix.BPF_K, K: k})
}

func (a *bpfAsm) jump(op uint16, k uint32, tt, ff string) {
	a.jumps = append(a.jumps, bpfJump{at: len(a.prog), tt: tt, ff: ff})
	a.emit(unix.SockFilter{Code: unix.BPF_JMP | op | unix.BPF_K, K: k})
}

func (a *bpfAsm) jeq(k uint32, tt, ff string)  { a.jump(unix.BPF_JEQ, k, tt, ff) }
func (a *bpfAsm) jge(k uint32, tt, ff string)  { a.jump(unix.BPF_JGE, k, tt, ff) }
func (a *bpfAsm) jset(k uint32, tt, ff string) { a.jump(unix.BPF_JSET, k, tt, ff) }

func (a *bpfAsm) ret(k uint32) { a.emit(unix.SockFilter{Code: unix.BPF_RET | unix.BPF_K, K: k}) }

func (a *bpfAsm) label(name string) {
	if a.labels == nil {
		a.labels = map[string]int{}
	}
	a.labels[name] = len(a.prog)
}

func (a *bpfAsm) assemble() ([]unix.SockFilter, error) {
	off := func(from int, to string) (uint8, error) {
		if to == "" {
			return 0, nil
		}
		at, ok := a.labels[to]
		if !ok || at <= from || at-from-1 > 255 {
			return 0, fmt.Errorf("seccomp filter: bad jump from %d to %q", from, to)
		}
		return uint8(at - from - 1), nil
	}
	for _, j := range a.jumps {
		var err error
		if a.prog[j.at].Jt, err = off(j.at, j.tt); err != nil {
			return nil, err
		}
		if a.prog[j.at].Jf, err = off(j.at, j.ff); err != nil {
			return nil, err
		}
	}
	return a.prog, nil
}
