//go:build unix

package store

import (
	"os"
	"syscall"
)

// lock is the tracker's exclusive lock: an advisory lock on the open lock
// file, which also holds the writing mark (see Tx.flush).
type lock struct{ f *os.File }

// openLock opens the lock file, refusing a symbolic link: the repository
// could name a file of the user's, which the mark would overwrite.
func openLock(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_CREATE|os.O_RDWR|syscall.O_NOFOLLOW, 0o644)
}

// lockFile takes the lock on path, waiting for it.
func lockFile(path string) (*lock, error) {
	f, err := openLock(path)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return &lock{f}, nil
}

// tryLockFile takes the lock on path when it is free now; ok false when
// another process holds it.
func tryLockFile(path string) (l *lock, ok bool, err error) {
	f, err := openLock(path)
	if err != nil {
		return nil, false, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		if err == syscall.EWOULDBLOCK {
			return nil, false, nil
		}
		return nil, false, err
	}
	return &lock{f}, true, nil
}

func (l *lock) unlock() {
	syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
	l.f.Close()
}

// marked reports whether the lock file holds the writing mark.
func (l *lock) marked() bool {
	buf := make([]byte, len(writingMark))
	n, _ := l.f.ReadAt(buf, 0)
	return string(buf[:n]) == writingMark
}

// mark sets or clears the writing mark.
func (l *lock) mark(on bool) error {
	if !on {
		return l.f.Truncate(0)
	}
	_, err := l.f.WriteAt([]byte(writingMark), 0)
	return err
}
