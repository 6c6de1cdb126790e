package sandbox

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// mountOwnProc gives the helper's PID namespace a /proc of its own. The
// helper starts in a new mount namespace with its PID namespace: the /proc
// it inherits is the outer namespace's, where the numbers a command gets
// for itself ($$, getpid) name other processes, and programs that read
// /proc/<pid> break (Codex's bubblewrap waits forever). Mounts are made
// private first, so nothing propagates to the host's.
func mountOwnProc() error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("making the mounts private: %w", err)
	}
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("mounting the PID namespace's /proc: %w", err)
	}
	return nil
}

// probe is the helper's probe mode: it exits 0 when a helper can run in
// the namespaces it was started in, /proc included, so that the server
// falls back to a subreaper where the kernel refuses a /proc mount.
func probe() int {
	if os.Getpid() == 1 && mountOwnProc() != nil {
		return 1
	}
	return 0
}
