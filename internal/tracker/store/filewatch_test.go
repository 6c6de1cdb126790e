package store

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/tracker"
)

// TestWatchedScanSeesEveryChange: a server's Repo that learns the changed
// shard files from the kernel sees the same stamps as a full scan after
// each way a file changes behind it: written in place (same size), a new
// file renamed over it, a new shard, a shard removed, a kind's directory
// removed and made again, and a link put in a shard's place.
func TestWatchedScanSeesEveryChange(t *testing.T) {
	root := t.TempDir()
	res, err := Init(root, "wt")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	r, err := Open(ctx, res.Path, "t")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	r.WatchFiles()
	var ids []string
	for range 6 {
		is, err := r.CreateIssue(ctx, IssueInput{Title: "an issue"})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, is.ID)
	}
	shard := func(id string) string {
		return filepath.Join(res.Path, filepath.FromSlash(tracker.ShardFile(tracker.IssueRecords, id)))
	}
	later := time.Now().Add(time.Hour)
	check := func(what string) {
		t.Helper()
		rs, err := openRecords(res.Path)
		if err != nil {
			t.Fatal(err)
		}
		defer rs.Close()
		got, err := r.scanShards(rs)
		if err != nil {
			t.Fatal(err)
		}
		var want shardStats
		if err := rs.scan(&want); err != nil {
			t.Fatal(err)
		}
		if *got != want {
			t.Errorf("%s: the watched scan differs from a full scan: %v", what, got.files())
		}
	}
	check("first scan")
	if r.watch.w == nil {
		t.Fatal("no watcher on the records directories")
	}
	check("nothing changed")

	p := shard(ids[0])
	data, _ := os.ReadFile(p)
	f, _ := os.OpenFile(p, os.O_WRONLY, 0)
	f.WriteAt(data, 0) // same bytes, same size: only the time moves
	f.Close()
	os.Chtimes(p, later, later)
	check("written in place")

	tmp := p + ".new"
	os.WriteFile(tmp, append(data, data...), 0o644)
	os.Rename(tmp, p)
	check("renamed over")

	fresh := filepath.Join(filepath.Dir(p), "ff.jsonl")
	if fresh == p {
		fresh = filepath.Join(filepath.Dir(p), "fe.jsonl")
	}
	os.WriteFile(fresh, nil, 0o644)
	check("a new shard")

	os.Remove(fresh)
	check("a shard removed")

	dir := filepath.Dir(p)
	os.RemoveAll(dir)
	check("the directory removed")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(p, data, 0o644)
	check("the directory made again")
	os.WriteFile(filepath.Join(dir, "00.jsonl"), data, 0o644)
	check("a file in the new directory")

	os.Remove(p)
	os.Symlink(filepath.Join(dir, "00.jsonl"), p)
	check("a link in a shard's place")
	os.Remove(p)
	os.WriteFile(p, data, 0o644)
	check("the link replaced")

	// Kinds with no directory yet are watched from the records directory.
	spec, err := r.CreateSpec(ctx, SpecInput{Title: "a spec", Design: "a line"})
	if err != nil {
		t.Fatal(err)
	}
	check("a kind's first file, by this Repo")
	one := 1
	fb, err := r.AddFeedback(ctx, FeedbackInput{IssueID: ids[0], SpecID: spec.ID, Content: "a note", Line: &one})
	if err != nil {
		t.Fatal(err)
	}
	check("another kind's first file")
	fp := filepath.Join(res.Path, filepath.FromSlash(tracker.ShardFile(tracker.FeedbackRecords, fb.ID)))
	fdata, _ := os.ReadFile(fp)
	os.WriteFile(fp, append(fdata, fdata...), 0o644)
	check("a file of a kind whose directory came after the watcher")
}
