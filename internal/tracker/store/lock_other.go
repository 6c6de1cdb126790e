//go:build !unix

package store

import (
	"errors"
	"os"
	"time"
)

// lock is the tracker's exclusive lock: the lock file, created by its
// holder and removed when released.
type lock struct{ path string }

// lockFile takes an exclusive lock by creating path, waiting while it
// exists (a lock older than a minute is taken as abandoned).
func lockFile(path string) (*lock, error) {
	for {
		l, ok, err := tryLockFile(path)
		if err != nil || ok {
			return l, err
		}
		if st, serr := os.Stat(path); serr == nil && time.Since(st.ModTime()) > time.Minute {
			os.Remove(path)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// tryLockFile takes the lock on path when it is free now; ok false when
// another process holds it.
func tryLockFile(path string) (l *lock, ok bool, err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if errors.Is(err, os.ErrExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	f.Close()
	return &lock{path}, true, nil
}

func (l *lock) unlock() { os.Remove(l.path) }

// marked is always true here: an abandoned lock file is removed, mark and
// all, so every change looks for a killed writer's leftovers.
func (l *lock) marked() bool { return true }

func (l *lock) mark(bool) error { return nil }
