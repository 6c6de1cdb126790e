package sandbox

import (
	"fmt"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// restrictSelf sets no_new_privs, applies the policy's Landlock rules
// and the seccomp filter to the calling thread, which the helper has
// locked and starts the command from, so the command inherits them.
// (Restricting every thread at once, as libraries do for a whole
// process, needs a signal to each thread, and hangs in the first process
// of a PID namespace on kernels before the ruleset flag that does it in
// one call; the helper's other threads run only the helper's own code.)
// In a box with a network namespace of its own, TCP is left to the
// namespace (the command may serve and reach its own loopback); without
// one, Landlock denies TCP and the filter UDP. What the kernel cannot
// restrict is left out and named in the report; a kernel without
// Landlock is reported, not fatal.
func restrictSelf(p Policy, box *boxConfig) Report {
	if !p.Landlock {
		return Report{Landlock: "off"}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return Report{Landlock: "unavailable", Reason: "prctl(PR_SET_NO_NEW_PRIVS): " + err.Error()}
	}
	if box != nil {
		// The box's own scratch places and pseudo-terminals: nothing of
		// the host is there (outside a box they are the host's).
		p.Full = append(p.Full[:len(p.Full):len(p.Full)], "/tmp", "/dev/shm")
		p.Terminal = append(p.Terminal[:len(p.Terminal):len(p.Terminal)], "/dev/pts")
		if p.UserNamespaces {
			// A namespace's maps are written in the box's own /proc.
			p.ReadWrite = append(p.ReadWrite[:len(p.ReadWrite):len(p.ReadWrite)], "/proc")
		}
	}
	ownNet := box != nil && !box.Network
	denyNet := !p.Network && !ownNet
	rep := landlockSelf(p, denyNet)
	if err := installFilter(filterOptions{denyUDP: denyNet, allowUserNS: p.UserNamespaces}); err != nil {
		rep.Missing = append(rep.Missing, "seccomp")
	}
	return rep
}

// landlockSelf applies the Landlock rules; denyNet asks it to deny TCP.
func landlockSelf(p Policy, denyNet bool) Report {
	if p.NoLandlock {
		return Report{Landlock: "unavailable", Reason: "disabled"}
	}
	abi, err := ll.LandlockGetABIVersion()
	if err != nil || abi < 1 {
		reason := "the kernel does not support it or it is not enabled"
		if err != nil {
			reason += ": " + err.Error()
		}
		return Report{Landlock: "unavailable", Reason: reason}
	}
	if err := restrictThread(p, abi, denyNet); err != nil {
		return Report{Landlock: "unavailable", ABI: abi, Reason: "set-up failed: " + err.Error()}
	}
	rep := Report{Landlock: "enforced", ABI: abi}
	if denyNet && abi < 4 {
		rep.Missing = append(rep.Missing, "network")
	}
	if abi < 6 {
		rep.Missing = append(rep.Missing, "scoping")
	}
	return rep
}

// Access rights by the ABI that brought them.
const (
	fsV1 = ll.AccessFSExecute | ll.AccessFSWriteFile | ll.AccessFSReadFile | ll.AccessFSReadDir |
		ll.AccessFSRemoveDir | ll.AccessFSRemoveFile | ll.AccessFSMakeChar | ll.AccessFSMakeDir |
		ll.AccessFSMakeReg | ll.AccessFSMakeSock | ll.AccessFSMakeFifo | ll.AccessFSMakeBlock | ll.AccessFSMakeSym
	// fileRights are the rights that apply to a file (not a directory).
	fileRights = ll.AccessFSExecute | ll.AccessFSWriteFile | ll.AccessFSReadFile | ll.AccessFSTruncate | ll.AccessFSIoctlDev
	readExec   = ll.AccessFSExecute | ll.AccessFSReadFile | ll.AccessFSReadDir
	readOnly   = ll.AccessFSReadFile | ll.AccessFSReadDir
	readWrite  = ll.AccessFSReadFile | ll.AccessFSWriteFile | ll.AccessFSTruncate
)

// handledFS is every file right the kernel's ABI knows.
func handledFS(abi int) uint64 {
	h := uint64(fsV1)
	if abi >= 2 {
		h |= ll.AccessFSRefer
	}
	if abi >= 3 {
		h |= ll.AccessFSTruncate
	}
	if abi >= 5 {
		h |= ll.AccessFSIoctlDev
	}
	return h
}

// restrictThread builds the ruleset of p for abi and enforces it on the
// calling thread.
func restrictThread(p Policy, abi int, denyNet bool) error {
	attr := ll.RulesetAttr{HandledAccessFS: handledFS(abi)}
	if abi >= 4 && denyNet {
		attr.HandledAccessNet = ll.AccessNetBindTCP | ll.AccessNetConnectTCP // no port rule: all denied
	}
	if abi >= 6 {
		attr.Scoped = ll.ScopeAbstractUnixSocket | ll.ScopeSignal
	}
	fd, err := ll.LandlockCreateRuleset(&attr, 0)
	if err != nil {
		return fmt.Errorf("landlock_create_ruleset: %w", err)
	}
	defer unix.Close(fd)
	all := attr.HandledAccessFS
	add := func(paths []string, access uint64) error {
		for _, path := range paths {
			if err := addPath(fd, path, access&all); err != nil {
				return err
			}
		}
		return nil
	}
	if err := add(p.Full, all); err != nil {
		return err
	}
	if err := add(p.Scratch, all); err != nil {
		return err
	}

	if err := add(p.ReadExec, readExec); err != nil {
		return err
	}
	if err := add(p.ReadOnly, readOnly); err != nil {
		return err
	}
	if err := add(p.ReadWrite, readWrite); err != nil {
		return err
	}
	if err := add(p.Terminal, readWrite|ll.AccessFSIoctlDev); err != nil {
		return err
	}
	if err := ll.LandlockRestrictSelf(fd, 0); err != nil {
		return fmt.Errorf("landlock_restrict_self: %w", err)
	}
	return nil
}

// addPath allows access beneath path (on a file: the rights that apply
// to files). A missing path is skipped.
func addPath(ruleset int, path string, access uint64) error {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil // missing optional paths are skipped
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		access &= fileRights
	}
	if access == 0 {
		return nil
	}
	if err := ll.LandlockAddPathBeneathRule(ruleset, &ll.PathBeneathAttr{AllowedAccess: access, ParentFd: fd}, 0); err != nil {
		return fmt.Errorf("landlock_add_rule %s: %w", path, err)
	}
	return nil
}
