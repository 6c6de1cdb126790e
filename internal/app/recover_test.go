package app_test

import (
	"context"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/app"
	"github.com/sudocode/sudocode/internal/orchestrator"
	"github.com/sudocode/sudocode/internal/orchestrator/agent"
	"github.com/sudocode/sudocode/internal/testkit"
	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

// deadPID is the pid of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// A server killed while its agent worked left the task in progress and
// its issue in progress, assigned to an agent that is gone. The next
// surface to open the project's tasks (a CLI command, serve, an MCP
// server) marks the task failed and hands the issue back, open, with the
// failure noted once — however many surfaces open it.
func TestIssueOfATaskWhoseServerDiedIsHandedBack(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	is, err := w.tr.CreateIssue(ctx, store.IssueInput{Title: "Crash"})
	if err != nil {
		t.Fatal(err)
	}
	w.commit("tracker")
	now := time.Now().UTC()
	task := orchestrator.Task{ID: "task-died", Agent: agent.ToolCommand, Description: "Crash", Instructions: "work",
		Branch: "sudocode/task-died", BaseSHA: testkit.Git(t, w.repo, "rev-parse", "HEAD"), Status: orchestrator.StatusInProgress,
		OwnerPID: deadPID(t), IssueID: is.ID, CreatedAt: now, UpdatedAt: now, StartedAt: &now}
	status, who := string(tracker.IssueInProgress), orchestrator.Assignee(task)
	if _, err := w.tr.UpdateIssue(ctx, is.ID, store.IssuePatch{Status: &status, Assignee: &who}); err != nil {
		t.Fatal(err)
	}
	w.commit("tracker")
	dir := t.TempDir()
	st, err := orchestrator.OpenStore(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Put(ctx, task); err != nil {
		t.Fatal(err)
	}
	st.Close()

	// Two surfaces open the project's tasks at once, as serve and a CLI
	// command would.
	for range 2 {
		st, err := orchestrator.OpenStore(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		orch := orchestrator.New(st, lookup, orchestrator.Options{Repo: w.repo, NoPool: true})
		tr := app.NewTracker(w.repo, "test")
		orch.FollowIssues(app.TaskIssues(tr, nil, "test"))
		t.Cleanup(func() { orch.Close(); st.Close(); tr.Close() })
	}
	testkit.WaitFor(t, testkit.Scale(time.Minute), "the issue to be handed back", func() bool {
		return strings.Contains(w.issue(is.ID), `"status":"open"`)
	})
	got := w.issue(is.ID)
	if n := strings.Count(got, "Agent task task-died (command, branch sudocode/task-died) failed at "); n != 1 ||
		!strings.Contains(got, "The server stopped while the agent was running.") || !strings.Contains(got, `"assignee":null`) {
		t.Errorf("the issue holds the failure %d times (want 1), or lacks the reason, or is still assigned: %s", n, got)
	}
}

// A process that merged a task and died before it closed the task's issue
// left the issue open over merged work. The next process to open the tasks
// closes it, once, with the merge commit in its reason; an issue a person
// reopened after a merge that did close it stays open.
func TestIssueOfAMergeWhoseCloseWasLostIsClosed(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	task, id := w.startDone(`printf 'hi\n' > greeting.txt && git add greeting.txt && git commit -qm agent`)
	res, err := w.open(nil).Merge(ctx, task.ID, orchestrator.MergeInput{}) // the merge, by a process that dies before the close
	if err != nil {
		t.Fatal(err)
	}
	if got := w.issue(id); strings.Contains(got, `"status":"closed"`) {
		t.Fatalf("the issue closed without its duty: %s", got)
	}

	w.reopen()
	got := w.issue(id)
	if !strings.Contains(got, `"status":"closed"`) || !strings.Contains(got, "Merged as "+res.Commit+" (task "+task.ID+")") {
		t.Fatalf("the next process did not close the issue with the merge: %s", got)
	}

	// Reopened by a person: the duty is done, the issue stays open.
	status := string(tracker.IssueOpen)
	if _, err := w.tr.UpdateIssue(ctx, id, store.IssuePatch{Status: &status}); err != nil {
		t.Fatal(err)
	}
	w.reopen()
	if got := w.issue(id); !strings.Contains(got, `"status":"open"`) {
		t.Errorf("an issue reopened after its merge closed it was closed again: %s", got)
	}
}

// A process that ended a task and died before it handed the task's issue
// back left the issue in progress, assigned to an agent that is gone. The
// next process to open the tasks hands it back, once.
func TestIssueOfAnEndWhoseHandBackWasLostIsHandedBack(t *testing.T) {
	w := newWorld(t)
	task, id := w.startDone(`printf 'hi\n' > greeting.txt`)
	if _, err := w.open(nil).End(context.Background(), task.ID, orchestrator.EndInput{KeepBranch: true}); err != nil { // by a process that dies before the hand-back
		t.Fatal(err)
	}
	if got := w.issue(id); !strings.Contains(got, `"status":"in_progress"`) {
		t.Fatalf("the issue changed without its duty: %s", got)
	}
	for range 2 {
		w.reopen()
	}
	got := w.issue(id)
	if n := strings.Count(got, "Agent task "+task.ID+" (command) was ended at "); n != 1 ||
		!strings.Contains(got, `"status":"open"`) || !strings.Contains(got, `"assignee":null`) {
		t.Errorf("the issue holds the hand-back %d times (want 1), or is not open and unassigned: %s", n, got)
	}
	if got, want := w.taskEvents(id), []string{"started " + task.ID, "ended " + task.ID}; !slices.Equal(got, want) {
		t.Errorf("the history says of the task %q, want %q (each once)", got, want)
	}
}

// A review sent by a process that died before recording it on the issue
// (orchestrator.Update by a process that died) is recorded by the next process to
// start, once, before the end's hand-back that followed it.
func TestReviewWhoseRecordWasLostIsRecorded(t *testing.T) {
	w := newWorld(t)
	task, id := w.startDone(`printf 'hi\n' > greeting.txt`)
	bare := w.open(nil) // a process that dies before it records the review
	if _, err := bare.Update(context.Background(), task.ID, orchestrator.UpdateInput{Instructions: "Say hello."}); err != nil {
		t.Fatal(err)
	}
	w.waitOn(bare, task.ID)
	if _, err := bare.End(context.Background(), task.ID, orchestrator.EndInput{KeepBranch: true}); err != nil {
		t.Fatal(err)
	}
	if got := w.issue(id); strings.Contains(got, "Review sent") {
		t.Fatalf("the issue changed without its duty: %s", got)
	}
	for range 2 {
		w.reopen()
	}
	got := w.issue(id)
	review, end := strings.Index(got, "Review sent to agent task "+task.ID), strings.Index(got, "was ended at")
	if strings.Count(got, "Review sent to agent task "+task.ID) != 1 || !strings.Contains(got, `\u003e Say hello.`) || end < review ||
		!strings.Contains(got, `"status":"open"`) {
		t.Errorf("want the review once, then the hand-back, the issue open: %s", got)
	}
}
