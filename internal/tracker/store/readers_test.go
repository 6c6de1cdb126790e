//go:build unix

package store_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

// TestReadersDoNotWaitForAWriter: while a writer holds the lock, its
// shard file is already renamed into place and its cache transaction not
// yet committed, so the file is ahead of the cache. A reader then answers
// from the cache as last committed, a consistent state, instead of queueing
// behind every writer for the lock; once the lock is free it sees the files.
func TestReadersDoNotWaitForAWriter(t *testing.T) {
	e := newEnv(t)
	id := e.issue("before", store.IssueInput{})
	e.next()
	lock, err := os.OpenFile(filepath.Join(e.dir, store.LockFile), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	setTitle(t, e.shardOf(tracker.IssueRecords, id), id, "after") // the writer's file, renamed in

	done := make(chan string, 1)
	go func() {
		d, err := e.r.ShowIssue(e.ctx, id)
		if err != nil {
			done <- "error: " + err.Error()
			return
		}
		done <- d.Title
	}()
	select {
	case got := <-done:
		if got != "before" {
			t.Errorf("a reader during a write saw %q, want the committed %q", got, "before")
		}
	case <-time.After(5 * time.Second):
		syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
		<-done
		t.Fatal("a reader waited for the writer's lock")
	}

	syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	e.next()
	if d, err := e.r.ShowIssue(e.ctx, id); err != nil || d.Title != "after" {
		t.Errorf("after the write, show says %q, %v; want %q", d.Title, err, "after")
	}
}
