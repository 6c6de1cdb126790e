package procs

import (
	"github.com/sudocode/sudocode/internal/sandbox"
)

// sandboxPolicy is what a command may touch (docs/sandbox.md): everything
// in the workspace and its private home and temp directory; read and
// execute the system, the toolchains on the server's PATH and the extra
// allowed roots; read a few system files; the devices; its terminal;
// TCP only when the server allows network.
func (m *Manager) sandboxPolicy(tty bool) sandbox.Policy {
	p := sandbox.Policy{
		Landlock:   true,
		Full:       []string{m.opts.Root, m.home, m.tmp},
		ReadOnly:   sandbox.SystemReadFiles,
		ReadWrite:  sandbox.SystemDevices,
		Network:    m.opts.Network || m.opts.Dangerous,
		NoLandlock: m.noLandlock,
		NoBox:      m.noBox,
	}
	p.ReadExec = append(p.ReadExec, sandbox.SystemReadExec...)
	p.ReadExec = append(p.ReadExec, m.toolPaths...)
	p.ReadExec = append(p.ReadExec, m.opts.AllowRoots...)
	if tty {
		p.Terminal = []string{"/dev/tty"}
	}
	return p
}

// sandboxWarning is the warning of a command the sandbox does not fully
// hold ("" when it does): what is missing, which checks applied, and what
// to do.
func sandboxWarning(r sandbox.Report) string {
	const advice = "; run the server in an external sandbox (a container or VM without secrets or network) for untrusted code"
	if r.Box != "sealed" && r.Landlock == "unavailable" {
		return "neither the sealed box nor Landlock is available (" + r.BoxReason + "; " + r.Reason + "): only the exec policy checks applied to this command, " +
			"so it can read and write outside the workspace and use the network" + advice
	}
	if g := r.Gaps(); g != "" {
		return "sandbox incomplete: " + g + advice
	}
	return ""
}
