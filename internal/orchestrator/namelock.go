package orchestrator

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"syscall"
)

// locksDir is the directory, under a worktree directory, that holds one
// lock file per worktree name in flight. Every process of every server and
// CLI run on the repository shares it: a worktree being created, filled,
// claimed or recycled holds the lock of its name until it is stored or
// named warm, so a Sweep anywhere spares it and no two processes claim the
// same warm worktree.
const locksDir = ".locks"

// nameLocks are the worktree-name locks this process holds, by lock path.
type nameLocks struct {
	mu   sync.Mutex
	held map[string]*os.File
}

// tryLock takes the lock of name under the worktree directory dir without
// waiting; it reports false when another holder has it (this process
// included).
func (l *nameLocks) tryLock(dir, name string) (bool, error) {
	if err := os.MkdirAll(filepath.Join(dir, locksDir), 0o755); err != nil {
		return false, err
	}
	path := filepath.Join(dir, locksDir, name)
	for {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return false, err
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				return false, nil
			}
			return false, err
		}
		// The holder before unlinks the file and then unlocks it: a lock
		// taken on a file no longer at path is not the name's; try again.
		if same(f, path) {
			l.mu.Lock()
			if l.held == nil {
				l.held = map[string]*os.File{}
			}
			l.held[path] = f
			l.mu.Unlock()
			return true, nil
		}
		f.Close()
	}
}

// same reports whether f is the file at path.
func same(f *os.File, path string) bool {
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	pi, err := os.Stat(path)
	return err == nil && os.SameFile(fi, pi)
}

// unlock releases the lock of name under dir, removing its file first.
func (l *nameLocks) unlock(dir, name string) {
	path := filepath.Join(dir, locksDir, name)
	l.mu.Lock()
	f := l.held[path]
	delete(l.held, path)
	l.mu.Unlock()
	if f != nil {
		_ = os.Remove(path)
		f.Close()
	}
}

// unlockAll releases every lock this process holds.
func (l *nameLocks) unlockAll() {
	l.mu.Lock()
	held := l.held
	l.held = nil
	l.mu.Unlock()
	for path, f := range held {
		_ = os.Remove(path)
		f.Close()
	}
}
