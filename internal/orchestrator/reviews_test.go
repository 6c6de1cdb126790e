package orchestrator

import (
	"context"
	"testing"
)

// A task's reviews are numbered in the order they were sent, kept with
// their run, and owed to its issue until each duty is done; a task
// without an issue owes none.
func TestReviewsAreOwedUntilRecorded(t *testing.T) {
	ctx := context.Background()
	s := storeFrom(t, nil)
	a, lone := failedTask("a", "is-1"), failedTask("lone", "")
	for _, review := range []string{"first", "second"} {
		if err := s.putStarted(ctx, a, review); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.putStarted(ctx, lone, "ignored"); err != nil {
		t.Fatal(err)
	}
	if err := s.putStarted(ctx, a, ""); err != nil { // a run without a review
		t.Fatal(err)
	}
	owed := func() (got []string) {
		rs, err := s.UndoneReviews(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rs {
			got = append(got, r.TaskID+":"+string(DutyNoteReview(r.Seq))+":"+r.Instructions)
		}
		return got
	}
	if got := owed(); len(got) != 2 || got[0] != "a:review:1:first" || got[1] != "a:review:2:second" {
		t.Fatalf("owed %q", got)
	}
	if ok, err := s.ClaimIssueDuty(ctx, "a", DutyNoteReview(1)); !ok || err != nil {
		t.Fatalf("claim: %v %v", ok, err)
	}
	if err := s.IssueDutyDone(ctx, "a", DutyNoteReview(1), true); err != nil {
		t.Fatal(err)
	}
	if got := owed(); len(got) != 1 || got[0] != "a:review:2:second" {
		t.Fatalf("owed after the first was recorded: %q", got)
	}
}
