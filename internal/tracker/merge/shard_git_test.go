package merge

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/trackertest"
)

// Tests of merges of the shard layout with real git. The shard files are
// written by hand: records/<kind>/<xx>.jsonl under .sudocode, each the
// canonical encoding of its records.

// issueShard is the path in the repository of the shard file of issue id.
func issueShard(id string) string {
	return ".sudocode/" + tracker.ShardFile(tracker.IssueRecords, id)
}

// commitShards writes each shard file (path → records) and commits.
func (g *gitRepo) commitShards(msg string, files map[string][]tracker.IssueRecord) {
	g.t.Helper()
	for path, recs := range files {
		g.write(path, encodeIssues(recs))
	}
	g.run("add", "-A")
	g.run("commit", "-q", "-m", msg)
}

// mergeClean merges branch into the checked-out one and fails unless git
// finished without a conflict and left a clean work tree; it returns git's
// output.
func (g *gitRepo) mergeClean(branch string) string {
	g.t.Helper()
	out, err := g.try("merge", "--no-edit", branch)
	if err != nil {
		g.t.Fatalf("git merge %s failed: %v\n%s", branch, err, out)
	}
	if u := g.run("ls-files", "-u"); u != "" {
		g.t.Fatalf("git reports unmerged paths:\n%s", u)
	}
	if st := g.run("status", "--porcelain"); st != "" {
		g.t.Fatalf("work tree not clean after the merge:\n%s", st)
	}
	return out
}

// wantFile fails unless the file at path is exactly want, and canonical
// (trackertest.ReadJSONL: parsed strictly, sorted, one line a record).
func (g *gitRepo) wantFile(path string, want []tracker.IssueRecord) {
	g.t.Helper()
	trackertest.ReadJSONL[tracker.IssueRecord](g.t, filepath.Join(g.dir, path))
	if got, w := g.read(path), encodeIssues(want); !bytes.Equal(got, w) {
		g.t.Errorf("%s differs at %s\ngot:\n%s", path, diffLines(got, w), got)
	}
}

// TestGitMergeDriverOnOneShard: two branches that each add records to the
// same shard file and edit different fields of the same record in it
// merge cleanly through the driver (git's line merge would conflict on
// the record's line), and so do two branches that both create the same
// shard file (git gives the driver an empty base).
func TestGitMergeDriverOnOneShard(t *testing.T) {
	g := newGitRepo(t)
	ids := trackertest.IDsInShard("sc", "07", 4) // A, B, then C from feature and D from main
	fresh := trackertest.IDsInShard("sc", "2a", 2)
	shard, freshShard := issueShard(ids[0]), issueShard(fresh[0])
	A := issue(ids[0], "aaaaaaaa-3333-4333-8333-000000000001", "A", 0)
	B := issue(ids[1], "bbbbbbbb-3333-4333-8333-000000000002", "B", 0)
	g.commitShards("base", map[string][]tracker.IssueRecord{shard: {A, B}})

	g.run("checkout", "-q", "-b", "feature")
	fA := with(A, func(r *tracker.IssueRecord) { r.Title, r.UpdatedAt = "A, retitled on feature", at(20) })
	C := issue(ids[2], "cccccccc-3333-4333-8333-000000000003", "C from feature", 20)
	E := issue(fresh[0], "eeeeeeee-3333-4333-8333-000000000005", "E from feature", 20)
	g.commitShards("feature", map[string][]tracker.IssueRecord{shard: {fA, B, C}, freshShard: {E}})

	g.run("checkout", "-q", "main")
	mA := with(A, func(r *tracker.IssueRecord) { r.Priority, r.UpdatedAt = 0, at(10) })
	mB := with(B, func(r *tracker.IssueRecord) { r.Status, r.UpdatedAt = tracker.IssueInProgress, at(10) })
	D := issue(ids[3], "dddddddd-3333-4333-8333-000000000004", "D from main", 10)
	F := issue(fresh[1], "ffffffff-3333-4333-8333-000000000006", "F from main", 10)
	g.commitShards("main", map[string][]tracker.IssueRecord{shard: {mA, mB, D}, freshShard: {F}})

	g.mergeClean("feature")
	wantA := with(A, func(r *tracker.IssueRecord) { r.Title, r.Priority, r.UpdatedAt = fA.Title, 0, at(20) })
	g.wantFile(shard, []tracker.IssueRecord{wantA, mB, C, D})
	g.wantFile(freshShard, []tracker.IssueRecord{E, F})
}

// TestGitMergeOfDifferentShardsNeedsNoDriver: records added (and edited)
// in different shard files merge without the driver. The driver here is
// `false`, so a merge that ran it would conflict; the attribute does
// apply to the shard files, so git chose not to run it.
func TestGitMergeOfDifferentShardsNeedsNoDriver(t *testing.T) {
	g := newGitRepo(t)
	g.run("config", "merge.sudocode.driver", "false")
	a, b := trackertest.IDsInShard("sc", "01", 1)[0], trackertest.IDsInShard("sc", "02", 1)[0]
	c, d := trackertest.IDsInShard("sc", "03", 1)[0], trackertest.IDsInShard("sc", "3f", 1)[0]
	A := issue(a, "aaaaaaaa-4444-4444-8444-000000000001", "A", 0)
	B := issue(b, "bbbbbbbb-4444-4444-8444-000000000002", "B", 0)
	g.commitShards("base", map[string][]tracker.IssueRecord{issueShard(a): {A}, issueShard(b): {B}})
	if got := g.run("check-attr", "merge", "--", issueShard(d)); got != issueShard(d)+": merge: sudocode" {
		t.Fatalf("the merge attribute does not reach the shard files: %q", got)
	}

	g.run("checkout", "-q", "-b", "feature")
	fA := with(A, func(r *tracker.IssueRecord) { r.Title, r.UpdatedAt = "A on feature", at(20) })
	C := issue(c, "cccccccc-4444-4444-8444-000000000003", "C from feature", 20)
	g.commitShards("feature", map[string][]tracker.IssueRecord{issueShard(a): {fA}, issueShard(c): {C}})

	g.run("checkout", "-q", "main")
	mB := with(B, func(r *tracker.IssueRecord) { r.Priority, r.UpdatedAt = 0, at(10) })
	D := issue(d, "dddddddd-4444-4444-8444-000000000004", "D from main", 10)
	g.commitShards("main", map[string][]tracker.IssueRecord{issueShard(b): {mB}, issueShard(d): {D}})

	g.mergeClean("feature")
	g.wantFile(issueShard(a), []tracker.IssueRecord{fA})
	g.wantFile(issueShard(b), []tracker.IssueRecord{mB})
	g.wantFile(issueShard(c), []tracker.IssueRecord{C})
	g.wantFile(issueShard(d), []tracker.IssueRecord{D})
}

// TestGitMergeDriverRenamesACollisionInItsShard: both branches create the
// same id with different uuids. A colliding id is always in one shard
// file, so the driver sees it; theirs' record is renamed by the first
// character of its uuid, and a reference to it from a theirs record of
// the same file follows. The renamed id belongs to another shard, but the
// record stays in the merged file: git takes back only that one.
func TestGitMergeDriverRenamesACollisionInItsShard(t *testing.T) {
	g := newGitRepo(t)
	ids := trackertest.IDsInShard("sc", "11", 2) // the colliding id, and the id of a child
	x, child := ids[0], ids[1]
	shard := issueShard(x)
	// theirs' uuid starts with a character that moves x to another shard.
	var c byte
	for _, h := range []byte("0123456789abcdef") {
		if issueShard(x+string(h)) != shard {
			c = h
			break
		}
	}
	if c == 0 {
		t.Fatalf("no uuid character moves %s to another shard", x)
	}
	uxf := string(c) + "0c0c0c0-5555-4555-8555-000000000002"
	base := issue(trackertest.IDsInShard("sc", "11", 3)[2], "bbbbbbbb-5555-4555-8555-000000000003", "base", 0)
	g.commitShards("base", map[string][]tracker.IssueRecord{shard: {base}})

	g.run("checkout", "-q", "-b", "feature")
	xf := issue(x, uxf, "X from feature", 20)
	Y := with(issue(child, "99999999-5555-4555-8555-000000000004", "Y under feature's X", 20), func(r *tracker.IssueRecord) {
		r.ParentID = new(x)
	})
	g.commitShards("feature", map[string][]tracker.IssueRecord{shard: {base, xf, Y}})

	g.run("checkout", "-q", "main")
	xm := issue(x, "aaaaaaaa-5555-4555-8555-000000000001", "X from main", 10)
	g.commitShards("main", map[string][]tracker.IssueRecord{shard: {base, xm}})

	out := g.mergeClean("feature")
	renamed := x + string(c)
	if !strings.Contains(out, "renamed "+x+" to "+renamed) {
		t.Errorf("the driver's rename warning is missing from git's output:\n%s", out)
	}
	wantXf := with(xf, func(r *tracker.IssueRecord) { r.ID = renamed })
	wantY := with(Y, func(r *tracker.IssueRecord) { r.ParentID = new(renamed) })
	g.wantFile(shard, []tracker.IssueRecord{base, xm, wantXf, wantY})
	if _, err := os.Stat(filepath.Join(g.dir, issueShard(renamed))); !os.IsNotExist(err) {
		t.Errorf("the renamed record's own shard %s was written: %v", issueShard(renamed), err)
	}
}

// TestGitMergeDriverNamesTheShardOfABadLine: a malformed line in a shard
// makes the driver fail with the shard's path and line, so git reports a
// conflict in that file and the driver writes nothing.
func TestGitMergeDriverNamesTheShardOfABadLine(t *testing.T) {
	g := newGitRepo(t)
	id := trackertest.IDsInShard("sc", "3f", 1)[0]
	shard := issueShard(id)
	A := issue(id, "aaaaaaaa-6666-4666-8666-000000000001", "A", 0)
	g.commitShards("base", map[string][]tracker.IssueRecord{shard: {A}})
	g.run("checkout", "-q", "-b", "feature")
	g.write(shard, append(encodeIssues([]tracker.IssueRecord{A}), "{broken\n"...))
	g.run("commit", "-q", "-am", "broken")
	g.run("checkout", "-q", "main")
	mine := encodeIssues([]tracker.IssueRecord{with(A, func(r *tracker.IssueRecord) { r.Title, r.UpdatedAt = "A2", at(1) })})
	g.write(shard, mine)
	g.run("commit", "-q", "-am", "edit")

	out, err := g.try("merge", "--no-edit", "feature")
	if err == nil {
		t.Fatalf("git merge succeeded over a malformed file:\n%s", out)
	}
	if want := "theirs: " + shard + " line 2: "; !strings.Contains(out, want) || !strings.Contains(out, "CONFLICT") {
		t.Errorf("git output does not report %q and a conflict:\n%s", want, out)
	}
	if u := g.run("ls-files", "-u"); !strings.Contains(u, shard) {
		t.Errorf("%s is not unmerged:\n%s", shard, u)
	}
	if got := g.read(shard); !bytes.Equal(got, mine) {
		t.Errorf("the driver wrote a partial result:\n%s", got)
	}
}
