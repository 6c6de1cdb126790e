package store_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/store"
	"github.com/sudocode/sudocode/internal/tracker/trackertest"
)

// TestMisplacedRecordMoved: a record in another shard than its id's (the
// merge driver renamed it, and can only write the file it merges) is read
// as any other, and the next change writes it into its own shard, leaving
// the file it was in emptied rather than removed.
func TestMisplacedRecordMoved(t *testing.T) {
	e := newEnv(t)
	id := e.issue("renamed by a merge", store.IssueInput{})
	own := e.shardOf(tracker.IssueRecords, id)
	line := readFile(t, own)
	other := tracker.IssueRecords.Dir()
	for _, f := range trackertest.ShardFiles(tracker.IssueRecords) {
		if p := filepath.Join(e.dir, filepath.FromSlash(f)); p != own {
			other = p
			break
		}
	}
	os.Remove(own)
	if err := os.WriteFile(other, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	e.next()
	if d, err := e.r.ShowIssue(e.ctx, id); err != nil || d.Title != "renamed by a merge" {
		t.Fatalf("show of a misplaced record: %+v, %v", d, err)
	}
	e.issue("another", store.IssueInput{})
	recs := trackertest.ReadRecords[tracker.IssueRecord](t, e.dir) // checks each is in its shard
	if len(recs) != 2 {
		t.Errorf("%d issues in the files, want 2", len(recs))
	}
	if got := readFile(t, other); strings.Contains(got, id) {
		t.Errorf("%s still holds %s", other, id)
	}
}

// TestRecordFilesStayInTheTracker: record files come from git, so a
// records directory or a shard file that is a symbolic link out of the
// tracker is never read or written through, and a shard that is not a
// regular file (a FIFO would hang a read) is refused.
func TestRecordFilesStayInTheTracker(t *testing.T) {
	t.Run("records directory linked out", func(t *testing.T) {
		e := newEnv(t)
		e.issue("mine", store.IssueInput{})
		outside := t.TempDir()
		secret := filepath.Join(outside, "issues", "00.jsonl")
		os.MkdirAll(filepath.Dir(secret), 0o755)
		os.WriteFile(secret, []byte("secret-material\n"), 0o644)
		os.RemoveAll(filepath.Join(e.dir, tracker.RecordsDir))
		if err := os.Symlink(outside, filepath.Join(e.dir, tracker.RecordsDir)); err != nil {
			t.Fatal(err)
		}
		e.next()
		_, err := e.r.CreateIssue(e.ctx, store.IssueInput{Title: "written through the link?"})
		if err == nil {
			t.Fatal("a change through a records link out of the tracker succeeded")
		}
		if strings.Contains(err.Error(), "secret-material") {
			t.Errorf("the error shows the outside file: %v", err)
		}
		entries, _ := os.ReadDir(filepath.Join(outside, "issues"))
		if len(entries) != 1 || readFile(t, secret) != "secret-material\n" {
			t.Errorf("the outside directory was written: %v", entries)
		}
	})
	t.Run("shard linked out", func(t *testing.T) {
		e := newEnv(t)
		id := e.issue("mine", store.IssueInput{})
		outside := filepath.Join(t.TempDir(), "target.jsonl")
		os.WriteFile(outside, []byte("secret-material\n"), 0o644)
		shard := e.shardOf(tracker.IssueRecords, id)
		os.Remove(shard)
		if err := os.Symlink(outside, shard); err != nil {
			t.Fatal(err)
		}
		e.next()
		_, err := e.r.ListIssues(e.ctx, store.IssueFilter{})
		wantCode(t, "a shard linked out", err, fault.Invalid)
		if err != nil && strings.Contains(err.Error(), "secret-material") {
			t.Errorf("the error shows the outside file: %v", err)
		}
		if readFile(t, outside) != "secret-material\n" {
			t.Error("the outside file was changed")
		}
	})
	t.Run("FIFO shard", func(t *testing.T) {
		e := newEnv(t)
		id := e.issue("mine", store.IssueInput{})
		shard := e.shardOf(tracker.IssueRecords, id)
		os.Remove(shard)
		if err := syscall.Mkfifo(shard, 0o644); err != nil {
			t.Fatal(err)
		}
		e.next()
		done := make(chan error, 1)
		go func() {
			_, err := e.r.ListIssues(e.ctx, store.IssueFilter{})
			done <- err
		}()
		select {
		case err := <-done:
			wantCode(t, "a FIFO shard", err, fault.Invalid)
		case <-time.After(10 * time.Second):
			t.Fatal("a FIFO shard hung the read")
		}
	})
}

// TestKilledWriterLeftoversRemoved: a writer killed while writing files
// leaves its temporary files and the lock file's writing mark; the next
// change removes them. A change that completes clears the mark.
func TestKilledWriterLeftoversRemoved(t *testing.T) {
	e := newEnv(t)
	id := e.issue("one", store.IssueInput{})
	lock := filepath.Join(e.dir, store.LockFile)
	if got := readFile(t, lock); got != "" {
		t.Fatalf("lock file after a completed change: %q", got)
	}
	shardDir := filepath.Dir(e.shardOf(tracker.IssueRecords, id))
	leftovers := []string{
		filepath.Join(shardDir, "."+filepath.Base(e.shardOf(tracker.IssueRecords, id))+".tmp-abcdefabcdef"),
		filepath.Join(e.dir, store.SpecsDir, ".x.md.tmp-abcdefabcdef"),
	}
	for _, p := range leftovers {
		if err := os.WriteFile(p, []byte("half"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(lock, []byte("writing\n"), 0o644); err != nil { // as the killed writer left it
		t.Fatal(err)
	}
	e.next()
	e.issue("two", store.IssueInput{})
	for _, p := range leftovers {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s left after the next change: %v", p, err)
		}
	}
	if got := readFile(t, lock); got != "" {
		t.Errorf("lock file after the clean-up: %q", got)
	}
}

// TestLocalFilesAreNotLinks: the cache and the lock are the tracker's own
// files, never committed, but a repository can hold anything: when one is
// a symbolic link (to a file of the user's, say), the tracker refuses to
// work rather than write through it.
func TestLocalFilesAreNotLinks(t *testing.T) {
	for _, name := range []string{store.LockFile, store.CacheFile, store.CacheFile + "-wal", store.CacheFile + "-shm", store.CacheFile + "-journal"} {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			res, err := store.Init(root, "tt")
			if err != nil {
				t.Fatal(err)
			}
			victim := filepath.Join(t.TempDir(), "victim")
			if err := os.WriteFile(victim, []byte("precious\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(res.Path, name)
			os.Remove(p)
			if err := os.Symlink(victim, p); err != nil {
				t.Fatal(err)
			}
			ctx := t.Context()
			r, err := store.Open(ctx, res.Path, "tester")
			if err == nil {
				_, err = r.CreateIssue(ctx, store.IssueInput{Title: "through the link?"})
				r.Close()
			}
			wantCode(t, name+" as a link", err, fault.Invalid)
			if got := readFile(t, victim); got != "precious\n" {
				t.Errorf("the link's target was written: %q", got)
			}
		})
	}
}
