//go:build linux

package procs

import (
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// sandboxed: on Linux commands start through the helper.
const sandboxed = true

// restrictSelf sets no_new_privs and applies Landlock to the helper
// (and so to the command it execs), best effort: what the kernel's ABI
// cannot restrict is left out, and a kernel without Landlock is reported,
// not fatal.
func restrictSelf(cfg helperConfig) helperReport {
	runtime.LockOSThread()
	syscall.CloseOnExec(statusFD)
	// SIGINT and SIGHUP stay ignored across exec when the server was
	// started ignoring them (nohup, a background job of a script), and
	// the Go runtime keeps that: handling them here makes the exec reset
	// them to their defaults, so that kill_session's INT works.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGINT, syscall.SIGHUP)
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return helperReport{Landlock: "unavailable", Reason: "prctl(PR_SET_NO_NEW_PRIVS): " + err.Error()}
	}
	if cfg.Disable {
		return helperReport{Landlock: "unavailable", Reason: "disabled"}
	}
	abi, err := ll.LandlockGetABIVersion()
	if err != nil || abi < 1 {
		reason := "the kernel does not support it or it is not enabled"
		if err != nil {
			reason += ": " + err.Error()
		}
		return helperReport{Landlock: "unavailable", Reason: reason}
	}
	if err := landlock.V11.BestEffort().RestrictPaths(rules(cfg, abi)...); err != nil {
		return helperReport{Landlock: "unavailable", ABI: abi, Reason: "set-up failed: " + err.Error()}
	}
	return helperReport{Landlock: "enforced", ABI: abi}
}

// rules are the Landlock rules of cfg for a kernel ABI version.
func rules(cfg helperConfig, abi int) []landlock.Rule {
	// The workspace gets every right the kernel knows (refer only from
	// ABI 2: asking for it on ABI 1 would make BestEffort give up).
	all := landlock.AccessFSSet(1<<17 - 1)
	if abi < 2 {
		all &^= ll.AccessFSRefer
	}
	rs := []landlock.Rule{landlock.PathAccess(all, cfg.Workspace)}
	for _, p := range cfg.ReadExec {
		fi, err := os.Stat(p)
		switch {
		case err != nil:
			continue // missing optional paths are skipped
		case fi.IsDir():
			rs = append(rs, landlock.RODirs(p).IgnoreIfMissing())
		default:
			rs = append(rs, landlock.ROFiles(p).IgnoreIfMissing())
		}
	}
	for _, p := range cfg.ReadOnly {
		fi, err := os.Stat(p)
		switch {
		case err != nil:
			continue
		case fi.IsDir():
			rs = append(rs, landlock.PathAccess(ll.AccessFSReadFile|ll.AccessFSReadDir, p).IgnoreIfMissing())
		default:
			rs = append(rs, landlock.PathAccess(ll.AccessFSReadFile, p).IgnoreIfMissing())
		}
	}
	rs = append(rs, landlock.RWFiles(cfg.ReadWrite...).IgnoreIfMissing())
	if len(cfg.Terminal) > 0 {
		rs = append(rs, landlock.RWFiles(cfg.Terminal...).WithIoctlDev().IgnoreIfMissing())
	}
	return rs
}

// execve replaces the helper with the command.
func execve(path string, argv, env []string) error {
	if err := syscall.Exec(path, argv, env); err != nil {
		return fmt.Errorf("exec %s: %w", path, err)
	}
	return nil
}
