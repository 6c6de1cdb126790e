//go:build linux

package sandbox

import (
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// The lifeline's write end stays open for the life of the server, garbage
// collections included: were it closed, every helper would read end of
// file and end its command as if the server had died.
func TestLifelineOutlivesGC(t *testing.T) {
	r, err := lifeline()
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		runtime.GC()
		// Finalizers run on their own goroutine after a collection: a
		// second one waits for those of the first to be queued and run.
		runtime.Gosched()
	}
	raw, err := r.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var revents int16
	var pollErr error
	raw.Control(func(fd uintptr) {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		_, pollErr = unix.Poll(fds, 0)
		revents = fds[0].Revents
	})
	if pollErr != nil {
		t.Fatal(pollErr)
	}
	if revents&(unix.POLLHUP|unix.POLLIN) != 0 {
		t.Fatalf("the lifeline's read end is readable (revents %#x): its write end was closed", revents)
	}
}
