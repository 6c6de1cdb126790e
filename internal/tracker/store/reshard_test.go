package store_test

import (
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/store"
	"github.com/sudocode/sudocode/internal/tracker/trackertest"
)

// TestRecordsOf64ShardsMoved: a clone written when a kind had 64 shards
// (a record's file was the CRC-32 of its id mod 64) is moved by its next
// command, cache or not: every record ends in its own shard file, none is
// lost or changed, and what the commands show is the same.
func TestRecordsOf64ShardsMoved(t *testing.T) {
	for _, cache := range []string{"kept", "removed"} {
		t.Run("cache "+cache, func(t *testing.T) {
			e := newEnv(t)
			spec := e.spec("the spec", store.SpecInput{Design: "a line to note"})
			var ids []string
			for i := range 60 {
				ids = append(ids, e.issue(fmt.Sprint("issue ", i), store.IssueInput{}))
			}
			e.link(ids[0], ids[1], "blocks")
			e.link(spec, ids[2], "references")
			e.feedback(ids[3], spec, 1, "")
			before := e.snapshot()
			ready := readyIDs(t, e)
			moved := 0
			for _, k := range tracker.RecordKinds {
				moved += placeAsShards(t, e.dir, k, 64)
			}
			if moved == 0 {
				t.Fatal("no record was placed in another file: the test tests nothing")
			}
			if cache == "removed" {
				for _, f := range []string{store.CacheFile, store.CacheFile + "-wal", store.CacheFile + "-shm"} {
					os.Remove(filepath.Join(e.dir, f))
				}
			}
			e.next()
			if got := readyIDs(t, e); !slices.Equal(got, ready) {
				t.Errorf("ready after the move: %v, before: %v", got, ready)
			}
			after := e.snapshot()
			sameRecords(t, before, after)
			if n := len(trackertest.ReadRecords[tracker.IssueRecord](t, e.dir)); n != 60 { // checks each is in its own shard
				t.Errorf("%d issues in the files after the move, want 60", n)
			}
		})
	}
}

// TestLeftoverCopyOfAMovedRecord: a move killed after it wrote a record's
// own shard file and before it rewrote the file the record left holds the
// same line in both. The next command keeps the one in its own shard; two
// copies that differ are refused, naming both files.
func TestLeftoverCopyOfAMovedRecord(t *testing.T) {
	e := newEnv(t)
	id := e.issue("moved", store.IssueInput{})
	keep := e.issue("kept", store.IssueInput{})
	own := e.shardOf(tracker.IssueRecords, id)
	line := lineOf(t, own, id)
	other := otherShard(t, e, tracker.IssueRecords, id, keep)
	writeSorted(t, other, append(linesIn(t, other), line))
	e.next()
	if d, err := e.r.ShowIssue(e.ctx, id); err != nil || d.Title != "moved" {
		t.Fatalf("show: %+v, %v", d, err)
	}
	if _, err := e.r.CreateIssue(e.ctx, store.IssueInput{Title: "after"}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(readFile(t, other), id) {
		t.Errorf("%s still holds the leftover copy of %s", other, id)
	}
	if n := len(trackertest.ReadRecords[tracker.IssueRecord](t, e.dir)); n != 3 {
		t.Errorf("%d issues in the files, want 3", n)
	}

	// Two copies that differ: which one is right is the user's call.
	changed := strings.Replace(line, `"title":"moved"`, `"title":"moved, edited"`, 1)
	writeSorted(t, other, append(linesIn(t, other), changed))
	before := e.snapshot()
	e.next()
	_, err := e.r.ShowIssue(e.ctx, id)
	wantCode(t, "show", err, fault.Invalid)
	rel := func(p string) string { r, _ := filepath.Rel(e.dir, p); return filepath.ToSlash(r) }
	if err == nil || !strings.Contains(err.Error(), rel(own)) || !strings.Contains(err.Error(), rel(other)) {
		t.Errorf("show of a record held twice, differently: %v; want both files named", err)
	}
	sameSnapshot(t, "commands on a record held twice", before, e.snapshot())
}

// placeAsShards rewrites kind k's records into n shard files by CRC-32 mod
// n, as a version with n shards a kind wrote them, and returns how many
// records are now outside their own shard.
func placeAsShards(t *testing.T, dir string, k tracker.RecordKind, n uint32) int {
	t.Helper()
	byFile := map[string][]string{}
	moved := 0
	for _, f := range trackertest.ShardFiles(k) {
		p := filepath.Join(dir, filepath.FromSlash(f))
		ls := linesIn(t, p)
		for _, l := range ls {
			id := strings.SplitN(strings.TrimPrefix(l, `{"id":"`), `"`, 2)[0]
			to := filepath.Join(filepath.Dir(p), fmt.Sprintf("%02x.jsonl", crc32.ChecksumIEEE([]byte(id))%n))
			if to != p {
				moved++
			}
			byFile[to] = append(byFile[to], l)
		}
		if len(ls) > 0 {
			if err := os.WriteFile(p, nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for p, ls := range byFile {
		writeSorted(t, p, ls)
	}
	return moved
}

// sameRecords checks that two snapshots hold the same record lines, in
// whatever files, and the same other files.
func sameRecords(t *testing.T, before, after map[string]string) {
	t.Helper()
	records := func(snap map[string]string) (lines []string, rest map[string]string) {
		rest = map[string]string{}
		for p, content := range snap {
			if _, ok := tracker.KindOfFile(p); ok {
				lines = append(lines, splitLines(content)...)
				continue
			}
			rest[p] = content
		}
		slices.Sort(lines)
		return lines, rest
	}
	bl, br := records(before)
	al, ar := records(after)
	if !slices.Equal(bl, al) {
		t.Errorf("the records changed: %d lines before, %d after", len(bl), len(al))
	}
	sameSnapshot(t, "the files besides the records", br, ar)
}

func readyIDs(t *testing.T, e *env) []string {
	t.Helper()
	r, err := e.r.Ready(e.ctx, store.ReadyOptions{Limit: 1000, Issues: true})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, it := range *r.Issues {
		ids = append(ids, it.ID)
	}
	return ids
}

func linesIn(t *testing.T, p string) []string {
	t.Helper()
	data, err := os.ReadFile(p)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return splitLines(string(data))
}

func splitLines(s string) []string {
	return slices.DeleteFunc(strings.Split(s, "\n"), func(l string) bool { return l == "" })
}

func lineOf(t *testing.T, p, id string) string {
	t.Helper()
	for _, l := range linesIn(t, p) {
		if strings.HasPrefix(l, `{"id":"`+id+`"`) {
			return l
		}
	}
	t.Fatalf("%s does not hold %s", p, id)
	return ""
}

// otherShard is a shard file of kind k other than those of the ids.
func otherShard(t *testing.T, e *env, k tracker.RecordKind, ids ...string) string {
	t.Helper()
	for _, f := range trackertest.ShardFiles(k) {
		p := filepath.Join(e.dir, filepath.FromSlash(f))
		if !slices.ContainsFunc(ids, func(id string) bool { return e.shardOf(k, id) == p }) {
			return p
		}
	}
	t.Fatal("no other shard")
	return ""
}

// writeSorted writes lines, sorted, as a JSONL file.
func writeSorted(t *testing.T, p string, ls []string) {
	t.Helper()
	ls = slices.Sorted(slices.Values(ls))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(strings.Join(ls, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bump(t, p, time.Now())
}
