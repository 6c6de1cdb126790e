package merge

import (
	"bytes"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/tracker"
)

// comment and change are activity records of issue sudocode-aaaa.
func comment(id, actor, body string, sec int) tracker.ActivityRecord {
	return tracker.ActivityRecord{ID: id, IssueID: "sudocode-aaaa", Type: tracker.ActivityComment, Actor: actor, At: at(sec), Body: &body}
}

func change(id, field, from, to string, sec int) tracker.ActivityRecord {
	return tracker.ActivityRecord{ID: id, IssueID: "sudocode-aaaa", Type: tracker.ActivityChange, Actor: "agent", At: at(sec),
		Field: &field, From: &from, To: &to}
}

// appendActivity commits lines appended to the activity shard, as the
// tracker appends them (not in id order).
func (g *gitRepo) appendActivity(path, msg string, recs ...tracker.ActivityRecord) {
	g.t.Helper()
	data := g.read(path)
	for i := range recs {
		line, err := tracker.MarshalLine(&recs[i])
		if err != nil {
			g.t.Fatal(err)
		}
		data = append(data, line...)
	}
	g.write(path, data)
	g.run("add", "-A")
	g.run("commit", "-q", "-m", msg)
}

// TestGitMergeActivity: two branches both comment on an issue and record
// changes of it, appending to the same activity shard (text merge: a
// conflict at the file's end); with the driver git merges them as the
// union of both sides' records, canonical, whichever way round.
func TestGitMergeActivity(t *testing.T) {
	g := newGitRepo(t)
	path := ".sudocode/" + tracker.ActivityFile("sudocode-aaaa")
	base := comment("sudocode-c-000000000base", "ann", "Base comment", 0)
	g.write(path, nil)
	g.appendActivity(path, "base", base)

	g.run("checkout", "-q", "-b", "feature")
	fc := comment("sudocode-c-zzzzzzfeature", "fay", "From **feature**", 20)
	fh := change("sudocode-h-aaaaaafeature", tracker.ChangeStatus, "open", "in_progress", 21)
	g.appendActivity(path, "feature comments", fc, fh)

	g.run("checkout", "-q", "main")
	mc := comment("sudocode-c-mmmmmmmmmain1", "max", "From main", 10)
	g.appendActivity(path, "main comments", mc)

	g.mergeClean("feature")
	got := g.read(path)
	want, err := tracker.EncodeActivity([]tracker.ActivityRecord{base, fc, fh, mc})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("merged activity differs at %s\ngot:\n%s", diffLines(got, want), got)
	}
	recs, err := tracker.ParseActivity(got)
	if err != nil || len(recs) != 4 {
		t.Fatalf("result: %d records, %v", len(recs), err)
	}
	comments, history := tracker.SplitActivity(recs, "sudocode-aaaa")
	if len(comments) != 3 || comments[0].Body != "Base comment" || comments[1].Body != "From main" || comments[2].Body != "From **feature**" || len(history) != 1 {
		t.Errorf("after the merge: comments %+v, history %+v", comments, history)
	}

	// The other way round gives the same file.
	g.run("checkout", "-q", "feature")
	g.run("reset", "-q", "--hard", "main^2")
	g.mergeClean("main^1")
	if rev := g.read(path); !bytes.Equal(rev, want) {
		t.Errorf("reverse merge differs at %s", diffLines(rev, want))
	}
}

// TestGitMergeActivityRefusesMalformed: a side whose activity shard holds
// a line that is not a valid record (here a comment over the size limit)
// is refused: git reports a conflict instead of the merge dropping it.
func TestGitMergeActivityRefusesMalformed(t *testing.T) {
	g := newGitRepo(t)
	path := ".sudocode/" + tracker.ActivityFile("sudocode-aaaa")
	g.write(path, nil)
	g.appendActivity(path, "base", comment("sudocode-c-000000000base", "ann", "Base", 0))
	g.run("checkout", "-q", "-b", "feature")
	g.appendActivity(path, "huge", comment("sudocode-c-0000000000big", "fay", strings.Repeat("x", tracker.MaxCommentBytes+1), 1))
	g.run("checkout", "-q", "main")
	g.appendActivity(path, "small", comment("sudocode-c-00000000small", "max", "small", 2))
	out, err := g.try("merge", "--no-edit", "feature")
	if err == nil || !strings.Contains(out, "CONFLICT") || !strings.Contains(out, "line 2") {
		t.Fatalf("git merge over a malformed side: %v\n%.2000s", err, out)
	}
}
