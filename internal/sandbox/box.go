package sandbox

// The sealed box. A confined command (Policy.Landlock) does not share the
// server's view of the machine and then try to forbid parts of it; it gets
// a machine of its own, built from nothing: new user, mount, PID, IPC and
// UTS namespaces, and a network namespace with only its own loopback
// unless the policy grants the network. Its root is an empty tmpfs into
// which the supervisor binds exactly the policy's paths, at the same
// places (so paths in output mean the same inside and out): the system
// and toolchain directories read-only, the workspace and the private home
// read-write, a fresh /tmp, /dev with the ordinary devices only and /proc
// of its own PID namespace. Nothing else of the host exists there: no
// other home, no /run or host /tmp, so no host socket (ssh-agent, Docker,
// D-Bus) can be named. The command runs as an unprivileged uid in a user
// namespace nested in the supervisor's, with no capability even when
// the server is root. Seccomp then refuses what namespaces do not cover,
// and Landlock, applied last, is the second wall on the same paths.

// boxConfig is how the supervisor builds the box; the server computes it
// from the policy (canonical paths, checked) and passes it in the
// helper's configuration.
type boxConfig struct {
	Binds   []bind    `json:"binds"`
	Links   []boxLink `json:"links,omitempty"`
	Network bool      `json:"network,omitempty"` // share the host's network namespace
	UID     int       `json:"uid"`               // the command's uid and gid inside the box
	GID     int       `json:"gid"`
}

// bind is one canonical path of the host made visible in the box, at
// the same place. Hide covers it with an empty directory (or an empty
// file) instead: a credential store inside a granted toolchain root.
type bind struct {
	Path    string `json:"path"`
	Write   bool   `json:"write,omitempty"`
	Hide    bool   `json:"hide,omitempty"`
	Scratch bool   `json:"scratch,omitempty"` // an empty writable tmpfs instead
	Seed    bool   `json:"seed,omitempty"`    // a copy of the host's file, inside a scratch directory
}
