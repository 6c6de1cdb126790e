package fleetrun

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/orchestrator"
	"github.com/sudocode/sudocode/internal/testkit"
)

// resumeScript is an agent that, where the lost worker's work is not in
// its worktree, commits first.txt, leaves loose.txt uncommitted and
// hangs; where it is, says what it found and what it was told, and
// writes second.txt.
const resumeScript = `if [ -f loose.txt ]; then
  grep -q interrupted && echo told
  echo "found $(cat first.txt) $(cat loose.txt)"; echo two > second.txt; echo finished; exit 0
fi
echo one > first.txt && git add first.txt && ` + agentCommit + ` first && echo loose > loose.txt && echo wrote
while :; do sleep 0.05; done`

// A worker lost mid-run had saved its agent's work: the worker taking the
// run again starts the agent on it (its commit kept, its uncommitted file
// uncommitted), tells it so, and the task's branch ends with both
// workers' work; the log and the issue's history say the run resumed, and
// the checkpoint is gone from the workers' repository once the work came
// back.
func TestALostWorkersRunResumesFromItsCheckpoint(t *testing.T) {
	repo := testkit.Repo(t)
	c, creds := newCoordinator(t, repo, "w1", "w2")
	issues := &fakeIssues{}
	c.o.FollowIssues(issues)
	stop1, _ := startWorker(t, c.host.URL, creds["w1"])
	task, err := c.o.Start(context.Background(), orchestrator.StartInput{IssueID: "iss-1", Agent: "COMMAND", Config: shell(resumeScript)})
	if err != nil {
		t.Fatal(err)
	}
	waitLogged(t, c.o, task.ID, "wrote")
	ref := orchestrator.CheckpointRef(task.ID, 1)
	testkit.WaitFor(t, 30*time.Second, "the checkpoint with loose.txt in the workers' repository", func() bool {
		return testkit.GitCmd(c.mirror, "cat-file", "-e", ref+":loose.txt").Run() == nil
	})
	startWorker(t, c.host.URL, creds["w2"])
	stop1()
	task = c.wait(t, task.ID)
	log := logText(t, c.o, task.ID)
	if task.Status != orchestrator.StatusCompleted {
		t.Fatalf("task %+v\nlog:\n%s", task, log)
	}
	for _, want := range []string{"run 1 taken by worker w2 (offered again: attempt 2", "run 1 resumed on worker w2 from the work the lost worker saved",
		"\ntold\n", "\nfound one loose\n"} {
		if !strings.Contains(log, want) {
			t.Fatalf("the log lacks %q:\n%s", want, log)
		}
	}
	if got := testkit.Git(t, repo, "log", "--format=%s", task.BaseSHA+".."+task.Branch); !strings.HasSuffix(got, "\nfirst") || strings.Count(got, "\n") != 1 {
		t.Fatalf("the branch's log %q: want the agent's commit, then the worker's of what it left", got)
	}
	for file, want := range map[string]string{"first.txt": "one", "loose.txt": "loose", "second.txt": "two"} {
		if got := testkit.Git(t, repo, "show", task.Branch+":"+file); got != want {
			t.Errorf("%s on the branch: %q, want %q", file, got, want)
		}
	}
	if got := issues.events(); strings.Join(got, " ") != "started resumed" {
		t.Errorf("the issue's history of the task: %v", got)
	}
	if refs := testkit.Git(t, c.mirror, "for-each-ref", "refs/sudocode/"); refs != "" {
		t.Errorf("the workers' repository keeps the run's refs: %s", refs)
	}
}

// A worker that stops gives its runs back with their work so far: a
// last checkpoint (here the only one, the interval being an hour), which
// the worker taking the run goes on from.
func TestAStoppingWorkerSavesItsRunsWork(t *testing.T) {
	repo := testkit.Repo(t)
	c, creds := newCoordinator(t, repo, "w1", "w2")
	c.o.FollowIssues(&fakeIssues{})
	stop1, _ := startWorkerSaving(t, c.host.URL, creds["w1"], time.Hour)
	task, err := c.o.Start(context.Background(), orchestrator.StartInput{IssueID: "iss-1", Agent: "COMMAND", Config: shell(resumeScript)})
	if err != nil {
		t.Fatal(err)
	}
	waitLogged(t, c.o, task.ID, "wrote")
	if err := testkit.GitCmd(c.mirror, "rev-parse", "--verify", "-q", orchestrator.CheckpointRef(task.ID, 1)).Run(); err == nil {
		t.Fatal("a checkpoint before the interval")
	}
	stop1()
	if err := testkit.GitCmd(c.mirror, "cat-file", "-e", orchestrator.CheckpointRef(task.ID, 1)+":loose.txt").Run(); err != nil {
		t.Fatalf("the stopped worker saved no checkpoint of its run: %v", err)
	}
	startWorker(t, c.host.URL, creds["w2"])
	task = c.wait(t, task.ID)
	log := logText(t, c.o, task.ID)
	if task.Status != orchestrator.StatusCompleted || !strings.Contains(log, "run 1 resumed on worker w2 from the work the lost worker saved") ||
		!strings.Contains(log, "\nfound one loose\n") {
		t.Fatalf("task %s\nlog:\n%s", task.Status, log)
	}
}

// fakeIssues is a tracker of issues that all exist, recording the task
// events of their history.
type fakeIssues struct {
	mu   sync.Mutex
	what []string
}

func (f *fakeIssues) Brief(_ context.Context, id, _ string, _ []string) (orchestrator.IssueBrief, error) {
	return orchestrator.IssueBrief{ID: id, Title: "Resume", Prompt: "# Issue " + id + ": Resume"}, nil
}
func (f *fakeIssues) Title(context.Context, string) (string, error) { return "Resume", nil }
func (f *fakeIssues) Take(context.Context, string, string) error    { return nil }
func (f *fakeIssues) HandBack(context.Context, string, func(orchestrator.IssueState) bool, string) error {
	return nil
}
func (f *fakeIssues) Review(context.Context, string, string, string) error { return nil }
func (f *fakeIssues) Close(context.Context, string, string) error          { return nil }
func (f *fakeIssues) Ready(context.Context, orchestrator.ReadyFilter) ([]string, error) {
	return nil, nil
}
func (f *fakeIssues) TaskEvent(_ context.Context, _, _, what string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.what = append(f.what, what)
	return nil
}

func (f *fakeIssues) events() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.what...)
}
