package testkit

import (
	"bytes"
	"sync"
)

// LockedBuffer is a bytes.Buffer that a writer (a child process's stderr,
// a logger) and a test reading it can share.
type LockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *LockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *LockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
