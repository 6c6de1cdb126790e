package gitx

import (
	"bytes"
	"os/exec"

	"github.com/sudocode/sudocode/internal/sandbox"
)

// process is a git process, plain or under the sandbox's helper.
type process struct {
	cmd *exec.Cmd
	sb  *sandbox.Cmd
}

func (p process) start() error {
	if p.sb != nil {
		return p.sb.Start()
	}
	return p.cmd.Start()
}

func (p process) wait() error {
	if p.sb != nil {
		return p.sb.Wait()
	}
	return p.cmd.Wait()
}

// exitCode is the exit code of a git that exited on its own.
func (p process) exitCode() (int, bool) {
	if p.sb != nil {
		code, sig := p.sb.ExitStatus()
		return code, sig == 0 && code >= 0
	}
	if st := p.cmd.ProcessState; st != nil && st.Exited() {
		return st.ExitCode(), true
	}
	return 0, false
}

// capWriter keeps the first limit bytes written to it.
type capWriter struct {
	limit int
	buf   bytes.Buffer
}

func (w *capWriter) Write(p []byte) (int, error) {
	if room := w.limit - w.buf.Len(); room > 0 {
		w.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (w *capWriter) String() string { return w.buf.String() }
