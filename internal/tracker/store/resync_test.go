package store_test

import (
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

// TestPullResyncsOnlyChangedIssues: when issue files change behind the
// cache as a pull changes it (an issue closed, one removed, one added, a
// parent's blocker finished), the next command brings in those lines
// without rebuilding the cache from every line, and every view is what a
// cache built from scratch shows. A change the cache cannot apply line by
// line (here a duplicate uuid) still stops the command with the file's
// error.
func TestPullResyncsOnlyChangedIssues(t *testing.T) {
	e := newEnv(t)
	parent := e.issue("parent", store.IssueInput{})
	e.issue("child", store.IssueInput{Parent: &parent})
	blocker := e.issue("blocker", store.IssueInput{})
	gone := e.issue("gone", store.IssueInput{})
	waiter := e.issue("waiter", store.IssueInput{})
	e.link(parent, blocker, "blocks")
	e.link(waiter, gone, "depends-on")
	e.editRecord(tracker.IssueRecords, blocker, func(l string) []string {
		l = strings.Replace(l, `"status":"open"`, `"status":"closed"`, 1)
		return []string{strings.Replace(l, `"closed_at":null`, `"closed_at":"2025-03-01T10:00:00Z"`, 1)}
	})
	var goneLine string
	e.editRecord(tracker.IssueRecords, gone, func(l string) []string {
		goneLine = l
		return nil
	})
	// The removed line comes back under another id and uuid: a new issue.
	added := strings.Replace(goneLine, `"id":"`+gone+`"`, `"id":"tt-0000"`, 1)
	e.addLine(tracker.IssueRecords, "tt-0000", strings.Replace(added, `"uuid":"`, `"uuid":"0`, 1))
	e.next()
	views := e.views()
	if n := store.FullRebuilds(e.r); n != 0 {
		t.Errorf("the cache was rebuilt from every line %d times after a change of 3 lines", n)
	}
	e.r.Close()
	e.r = nil
	removeCache(t, e.dir)
	e.next()
	for k, v := range e.views() {
		if views[k] != v {
			t.Errorf("%s after the resync differs from a cache built from scratch:\n resync  %s\n scratch %s", k, views[k], v)
		}
	}

	// A duplicate uuid: the full read reports it.
	var copied string
	e.editRecord(tracker.IssueRecords, "tt-0000", func(l string) []string {
		copied = l
		return []string{l}
	})
	e.addLine(tracker.IssueRecords, "tt-0001", strings.Replace(copied, `"id":"tt-0000"`, `"id":"tt-0001"`, 1))
	e.next()
	_, err := e.r.Stats(e.ctx)
	wantCode(t, "a duplicate uuid", err, fault.Invalid)
}
