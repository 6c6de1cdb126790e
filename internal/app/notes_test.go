package app_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/orchestrator"
	"github.com/sudocode/sudocode/internal/testkit"
)

// internalWords are names a person reading an issue or a commit should
// not meet: the orchestrator's tool kind and error type, and a status
// where the note can say what happened.
var internalWords = []string{"COMMAND", "agent_exit", "(completed)", "(cancelled)", "(failed)"}

func leaks(t *testing.T, what, text string) {
	t.Helper()
	for _, w := range internalWords {
		if strings.Contains(text, w) {
			t.Errorf("%s says %q: %s", what, w, text)
		}
	}
}

// The tasks' notes on an issue, and its merge commit, name the agent as
// --agent does (command) and say in words what became of the task.
func TestNotesNameTheAgentAsTheCLIDoes(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()

	t.Run("failed", func(t *testing.T) {
		task, id := w.startOn("Break", "echo broken >&2; exit 3")
		task = w.wait(task.ID)
		w.orch.Finished(ctx, task)
		got := w.issue(id)
		if !strings.Contains(got, "Agent task "+task.ID+" (command, branch "+task.Branch+") failed at ") ||
			!strings.Contains(got, "The agent exited with code 3: broken") {
			t.Errorf("failed task's note: %s", got)
		}
		leaks(t, "the failed task's note", got)
	})

	t.Run("ended", func(t *testing.T) {
		task, id := w.startDone("true")
		got := w.end(task.ID, id)
		if !strings.Contains(got, "Agent task "+task.ID+" (command) was ended at ") || !strings.Contains(got, "The issue is open again.") {
			t.Errorf("ended task's note: %s", got)
		}
		leaks(t, "the ended task's note", got)
	})

	t.Run("stopped", func(t *testing.T) {
		task, id := w.startOn("Wait forever", "sleep 600")
		testkit.WaitFor(t, testkit.Scale(time.Minute), "the agent to run", func() bool {
			cur, err := w.orch.Get(ctx, task.ID)
			return err == nil && cur.Status == orchestrator.StatusInProgress
		})
		got := w.end(task.ID, id)
		if !strings.Contains(got, "Agent task "+task.ID+" (command) was stopped while its agent ran at ") {
			t.Errorf("stopped task's note: %s", got)
		}
		leaks(t, "the stopped task's note", got)
	})

	t.Run("merged", func(t *testing.T) {
		task, _ := w.startDone("echo hi > hi.txt && git add hi.txt && git commit -qm hi")
		if _, err := w.orch.Merge(ctx, task.ID, orchestrator.MergeInput{}); err != nil {
			t.Fatal(err)
		}
		msg := testkit.Git(t, w.repo, "log", "-1", "--format=%B")
		if !strings.Contains(msg, "made by sudocode task "+task.ID+" (command)") {
			t.Errorf("merge commit message: %s", msg)
		}
		leaks(t, "the merge commit", msg)
	})
}

// end ends task id (orchestrator.End) and returns its issue as it then reads.
func (w *world) end(id, issue string) string {
	w.t.Helper()
	if _, err := w.orch.End(context.Background(), id, orchestrator.EndInput{}); err != nil {
		w.t.Fatal(err)
	}
	return w.issue(issue)
}
