// Package sandbox runs a command confined by the kernel: the server
// re-executes its own binary as a small supervisor (the helper) that
// restricts itself with Landlock (files, TCP, signal and abstract-socket
// scoping, as far as the kernel's ABI goes), sets no_new_privs, and starts
// the command as its child. Every descendant of the command ends with it:
// the helper is the first process of a new PID namespace (where the kernel
// allows one, with a mount namespace for the namespace's own /proc), so
// when it exits the kernel kills whatever the command left
// behind, setsid and double forks included; where no namespace can be had
// it is a subreaper that kills its remaining descendants itself. The
// helper also ends everything when the server dies (a pipe whose write end
// only the server holds reaches end of file), so nothing outlives a killed
// server either: at once, or after the command's Finish.
//
// Go cannot run code between fork and exec, hence the re-exec: a binary
// links this package, and the package's init turns the process into the
// helper when the server started it as one.
package sandbox

import (
	"fmt"
	"strings"
	"time"
)

// Policy is what a sandboxed command may touch.
type Policy struct {
	// Landlock restricts the command; false runs it contained only
	// (processes end with it) but otherwise unrestricted, as agents run.
	Landlock  bool     `json:"landlock,omitempty"`
	Full      []string `json:"full,omitempty"`       // every right: the workspace, private home and temp
	ReadExec  []string `json:"read_exec,omitempty"`  // read + execute, directories or files
	ReadOnly  []string `json:"read_only,omitempty"`  // read, directories or files
	ReadWrite []string `json:"read_write,omitempty"` // read + write files (devices)
	Terminal  []string `json:"terminal,omitempty"`   // read + write + ioctl (the session's terminal)
	// Hide are paths inside granted ones that stay out of reach: the box
	// covers them with an empty mount (credential stores inside a
	// toolchain root). Landlock, an allow-list, cannot take a path out of
	// a granted one: callers grant around them there.
	Hide []string `json:"hide,omitempty"`
	// Scratch are directories that are empty and writable in the box, a
	// fresh tmpfs each time (an agent's home, around the parts of it that
	// are bound); Seed are files copied into them from the host as the
	// box is built, whose changes are not kept. Outside a box, Landlock
	// grants Scratch read-write.
	Scratch []string `json:"scratch,omitempty"`
	Seed    []string `json:"seed,omitempty"`
	// Network is the host's network. Without it a boxed command has a
	// network namespace of its own with only its loopback; where no box
	// can be built, Landlock (ABI 4) denies TCP and seccomp UDP.
	Network bool `json:"network,omitempty"`
	// UserNamespaces lets the command make user namespaces (and the other
	// namespaces they allow) inside the box: an agent CLI that confines
	// its own commands with them (Codex) needs it. They give capabilities
	// over what the command's new namespaces own only, never the box's.
	UserNamespaces bool `json:"user_namespaces,omitempty"`
	// RootInBox runs the command as uid 0 of its own user namespace,
	// mapped to the server's uid and owning no other namespace (the box's
	// mounts, network and processes stay out of its reach): for a CLI that
	// trusts only configuration owned by root (Gemini CLI's system
	// settings), which the server's own files then appear to be.
	RootInBox bool `json:"root_in_box,omitempty"`
	// NoLandlock leaves Landlock out, as on a kernel without it: tests of
	// that case, and a command that builds its own sandbox with mounts,
	// which Landlock forbids (Codex's bubblewrap).
	NoLandlock bool `json:"no_landlock,omitempty"`
	// NoBox behaves as on a kernel that refuses the box's namespaces
	// (tests of the fallback).
	NoBox bool `json:"no_box,omitempty"`
	// Finish is how long a command running when the server dies may go
	// on to end by itself before everything is ended; zero ends it at
	// once. A command that must not stop half-way (git writing a
	// repository: killed, it leaves its lock files, which refuse every
	// later write, and a work tree half updated) gets the time to end.
	Finish time.Duration `json:"finish,omitempty"`
}

// Report is how the helper set itself up.
type Report struct {
	// Box is "sealed" (the command runs in its own namespaces and root),
	// "unavailable" (BoxReason says why; the fallback walls apply) or
	// "off" (not asked for).
	Box       string `json:"box,omitempty"`
	BoxReason string `json:"box_reason,omitempty"`
	Landlock  string `json:"landlock,omitempty"` // "enforced", "unavailable" or "off" (not asked for)
	ABI       int    `json:"abi,omitempty"`
	Reason    string `json:"reason,omitempty"` // why Landlock is unavailable
	// Missing names what the kernel's ABI cannot restrict although the
	// policy asked for it: "network" (ABI 4), "scoping" (ABI 6).
	Missing []string `json:"missing,omitempty"`
	// Containment is how descendants are made to end with the command:
	// "pid-namespace", "subreaper", or "none" (no helper could run).
	Containment string `json:"containment,omitempty"`
}

// Enforced reports whether Landlock restricts the command.
func (r Report) Enforced() bool { return r.Landlock == "enforced" }

// Gaps describes what the sandbox does not enforce, for a warning; ""
// when the policy holds in full.
func (r Report) Gaps() string {
	var gaps []string
	if r.Box == "unavailable" {
		gaps = append(gaps, "the sealed box is unavailable ("+r.BoxReason+"): the command shares the server's mounts, network namespace and host sockets, restricted by Landlock and seccomp only")
	}
	if r.Landlock == "unavailable" {
		gaps = append(gaps, "Landlock is unavailable ("+r.Reason+"): files, network and signals are not restricted")
	}
	for _, m := range r.Missing {
		switch m {
		case "network":
			gaps = append(gaps, fmt.Sprintf("the kernel's Landlock ABI %d has no network rules (ABI 4): TCP is not restricted", r.ABI))
		case "seccomp":
			gaps = append(gaps, "no seccomp filter could be installed (none for this architecture): packet and raw sockets, Multipath TCP, TCP Fast Open and new namespaces are not refused")
		case "scoping":
			gaps = append(gaps, fmt.Sprintf("the kernel's Landlock ABI %d has no scoping (ABI 6): signals to other processes and abstract unix sockets are not restricted", r.ABI))
		}
	}
	switch r.Containment {
	case "subreaper":
		gaps = append(gaps, "no PID namespace could be created: descendants are ended by a supervising subreaper, which a command that kills it can escape")
	case "none":
		gaps = append(gaps, "no supervisor could be started: only the command's process group is ended with it")
	}
	return strings.Join(gaps, "; ")
}
