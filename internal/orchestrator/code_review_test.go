package orchestrator

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/testkit"
)

// Code comments follow their line through a follow-up that changes the
// file above it, and read stale when the follow-up removed their line;
// both go to the agent as one review, then read sent.
func TestCodeCommentsFollowTheirCode(t *testing.T) {
	f := newFixture(t, testkit.Repo(t))
	ctx := context.Background()
	script := `if [ -z "$FAKE_RESUME" ]; then printf 'a\nb\nkeep me\ndrop me\nz\n' > code.txt; echo SESSION s1; echo DONE ok; ` +
		`else cat > asked.txt; printf 'new 1\nnew 2\na\nb\nkeep me\nz\n' > code.txt; echo DONE ok; fi`
	task, err := f.o.Create(ctx, CreateInput{Agent: "FAKE", Description: "review", Config: cfg(script)})
	if err != nil {
		t.Fatal(err)
	}
	task = f.wait(t, task.ID)
	keep, err := f.o.AddCodeComment(ctx, task.ID, CodeCommentInput{File: "code.txt", Line: 3, Body: "rename this"})
	if err != nil || keep.Line != 3 || keep.Code != "keep me" || keep.State != CommentOpen {
		t.Fatalf("comment %+v %v", keep, err)
	}
	if _, err := f.o.AddCodeComment(ctx, task.ID, CodeCommentInput{File: "code.txt", Line: 4, Body: "why this?"}); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []CodeCommentInput{{File: "../x", Line: 1, Body: "x"}, {File: "code.txt", Line: 9, Body: "x"}, {File: "code.txt", Line: 1, Body: " "}} {
		if _, err := f.o.AddCodeComment(ctx, task.ID, bad); !fault.Is(err, fault.Invalid) {
			t.Errorf("%+v: %v", bad, err)
		}
	}
	if _, err := f.o.AddCodeComment(ctx, task.ID, CodeCommentInput{File: "none.txt", Line: 1, Body: "x"}); !fault.Is(err, fault.NotFound) {
		t.Errorf("a missing file: %v", err)
	}

	if _, _, err := f.o.SendReview(ctx, task.ID, "and add tests"); err != nil {
		t.Fatal(err)
	}
	task = f.wait(t, task.ID)
	asked, _ := os.ReadFile(filepath.Join(task.WorktreePath, "asked.txt"))
	for _, want := range []string{"code.txt:3\n> keep me\nrename this", "code.txt:4\n> drop me\nwhy this?", "\nand add tests\n"} {
		if !strings.Contains(string(asked), want) {
			t.Errorf("the agent was asked:\n%s\nwithout %q", asked, want)
		}
	}
	cs, err := f.o.CodeComments(ctx, task.ID)
	if err != nil || len(cs) != 2 {
		t.Fatalf("comments %+v %v", cs, err)
	}
	if c := cs[0]; c.Line != 5 || c.Stale || c.State != CommentSent || c.Review != 1 || c.SentAt == nil || c.Anchor.OriginalLocation.LineNumber != 3 {
		t.Errorf("the comment on a line two lines moved down: %+v", c)
	}
	if c := cs[1]; !c.Stale || c.State != CommentSent {
		t.Errorf("the comment on a removed line: %+v", c)
	}
	// Nothing open: a review needs a follow-up then.
	if _, _, err := f.o.SendReview(ctx, task.ID, " "); !fault.Is(err, fault.Invalid) {
		t.Errorf("an empty review: %v", err)
	}
	if err := f.o.DeleteCodeComment(ctx, task.ID, cs[1].ID); err != nil {
		t.Fatal(err)
	}
	if err := f.o.DeleteCodeComment(ctx, task.ID, cs[1].ID); !fault.Is(err, fault.NotFound) {
		t.Errorf("deleted twice: %v", err)
	}
}

// The agent's worktree is not trusted: a commented file it turned into a
// FIFO (whose open would wait for a writer) or a link out of the worktree
// reads as gone, at once.
func TestCodeCommentsReadNoFIFOOrLinkOut(t *testing.T) {
	f := newFixture(t, testkit.Repo(t))
	ctx := context.Background()
	task, err := f.o.Create(ctx, CreateInput{Agent: "FAKE", Description: "fifo", Config: cfg(`printf 'a\nb\n' > code.txt; printf 'c\n' > other.txt; echo DONE ok`)})
	if err != nil {
		t.Fatal(err)
	}
	task = f.wait(t, task.ID)
	for _, file := range []string{"code.txt", "other.txt"} {
		if _, err := f.o.AddCodeComment(ctx, task.ID, CodeCommentInput{File: file, Line: 1, Body: "x"}); err != nil {
			t.Fatal(err)
		}
	}
	code, other := filepath.Join(task.WorktreePath, "code.txt"), filepath.Join(task.WorktreePath, "other.txt")
	outside := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(outside, []byte("c\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(code); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(code, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(other); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, other); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var cs []CodeComment
	go func() {
		defer close(done)
		cs, err = f.o.CodeComments(ctx, task.ID)
	}()
	select {
	case <-done:
	case <-time.After(testkit.Scale(30 * time.Second)):
		t.Fatal("reading the comments waits on the FIFO the agent left")
	}
	if err != nil || len(cs) != 2 || !cs[0].Stale || !cs[1].Stale {
		t.Fatalf("comments on a FIFO and on a link out of the worktree: %+v %v; want both stale", cs, err)
	}
}
