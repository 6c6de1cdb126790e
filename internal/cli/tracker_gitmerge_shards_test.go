package cli_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/trackertest"
)

// TestInitAttributesReachTheShards: the .gitattributes init writes
// (*.jsonl merge=sudocode) gives every shard file of every kind, as git
// itself reads it, the sudocode merge driver.
func TestInitAttributesReachTheShards(t *testing.T) {
	_, git := newGitProj(t)
	var paths []string
	for _, k := range tracker.RecordKinds {
		for _, f := range []string{"00.jsonl", "3f.jsonl"} {
			paths = append(paths, ".sudocode/"+tracker.RecordsDir+"/"+k.Dir()+"/"+f)
		}
	}
	out := git(append([]string{"check-attr", "merge", "--"}, paths...)...)
	var want []string
	for _, p := range paths {
		want = append(want, p+": merge: sudocode")
	}
	if out != strings.Join(want, "\n") {
		t.Fatalf("git check-attr merge:\n%s\nwant:\n%s", out, strings.Join(want, "\n"))
	}
}

// TestMergeDriverCommandOnAShard: with the driver init registered, two
// branches that add records to one shard file, edit different fields of
// one record in it and create the same id merge cleanly through
// `sudocode merge-driver`, which reports the rename with the shard's path.
// The shard files are written by hand, as the tracker lays them out.
func TestMergeDriverCommandOnAShard(t *testing.T) {
	p, git := newGitProj(t)
	ids := trackertest.IDsInShard("sc", "2c", 4) // A, B from left, C from right, X from both
	shard := filepath.Join(p.dir, filepath.FromSlash(tracker.ShardFile(tracker.IssueRecords, ids[0])))
	rel := ".sudocode/" + tracker.ShardFile(tracker.IssueRecords, ids[0])
	commit := func(msg string, recs ...tracker.IssueRecord) {
		t.Helper()
		data, err := tracker.EncodeIssues(recs)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(shard), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(shard, data, 0o644); err != nil {
			t.Fatal(err)
		}
		git("add", "-A")
		git("commit", "-qm", msg)
	}
	A := trackertest.Issue(ids[0], "aaaaaaaa-7777-4777-8777-000000000001", "A", 0)
	commit("base", A)

	git("checkout", "-qb", "left")
	lA := A
	lA.Title, lA.UpdatedAt = "A, retitled on the left", trackertest.At(20)
	B := trackertest.Issue(ids[1], "bbbbbbbb-7777-4777-8777-000000000002", "B from the left", 20)
	xl := trackertest.Issue(ids[3], "f1f1f1f1-7777-4777-8777-000000000004", "X from the left", 20)
	commit("left", lA, B, xl)

	git("checkout", "-q", "main")
	rA := A
	rA.Assignee, rA.UpdatedAt = new("bob"), trackertest.At(10)
	C := trackertest.Issue(ids[2], "cccccccc-7777-4777-8777-000000000003", "C from the right", 10)
	xr := trackertest.Issue(ids[3], "e2e2e2e2-7777-4777-8777-000000000005", "X from the right", 10)
	commit("right", rA, C, xr)

	out := git("merge", "--no-edit", "left")
	if !strings.Contains(out, "sudocode: "+rel+": renamed "+ids[3]+" to "+ids[3]+"f") {
		t.Errorf("the driver did not report the rename with the shard's path:\n%s", out)
	}
	if st := git("status", "--porcelain", "--untracked-files=no"); st != "" {
		t.Fatalf("work tree not clean after merge:\n%s", st)
	}
	got := trackertest.ReadJSONL[tracker.IssueRecord](t, shard) // canonical and sorted
	wantA := A
	wantA.Title, wantA.Assignee, wantA.UpdatedAt = lA.Title, rA.Assignee, lA.UpdatedAt
	xl.ID = ids[3] + "f"
	want, _ := tracker.EncodeIssues([]tracker.IssueRecord{wantA, B, C, xr, xl})
	if enc, _ := tracker.EncodeIssues(got); !bytes.Equal(enc, want) {
		t.Fatalf("%s after the merge differs at %s\ngot:\n%s", rel, trackertest.DiffLines(enc, want), enc)
	}
}
