package fleetrun

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// ErrFleetBusy is StartHost's error when another process runs the
// embedded server of the same fleet directory: nats-server does not lock
// its store, and two servers writing one store would corrupt it.
var ErrFleetBusy = errors.New("another process runs this checkout's fleet")

// lockDir takes the lock of the fleet directory dir without waiting; the
// lock lasts as long as the file returned stays open (the kernel drops it
// when the process dies, however it dies).
func lockDir(dir string) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w (%s is locked: is another sudocode serve running on this checkout?)", ErrFleetBusy, dir)
		}
		return nil, err
	}
	return f, nil
}
