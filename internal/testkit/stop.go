package testkit

import (
	"os"
	"syscall"
	"testing"
	"time"
)

// Stop ends a server the test started as a user would, with SIGTERM, and
// waits for exited (closed once the process has been reaped). A server
// stopped so finishes its background work, in the repository under the
// test's temporary directory; one killed would leave its children to go
// on writing there while the directory is removed. A server that has not
// exited within Scale(d) is killed and fails tb: it hangs on shutdown.
func Stop(tb testing.TB, p *os.Process, exited <-chan struct{}, d time.Duration) {
	tb.Helper()
	if p.Signal(syscall.SIGTERM) != nil { // already gone
		<-exited
		return
	}
	timer := time.NewTimer(Scale(d))
	defer timer.Stop()
	select {
	case <-exited:
	case <-timer.C:
		p.Kill()
		<-exited
		tb.Errorf("process %d did not exit within %v of SIGTERM; killed it (%s)", p.Pid, Scale(d), slowHint())
	}
}
