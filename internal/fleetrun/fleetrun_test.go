package fleetrun

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/fleet"
	"github.com/sudocode/sudocode/internal/natsbus"
	"github.com/sudocode/sudocode/internal/orchestrator"
	"github.com/sudocode/sudocode/internal/testkit"
	"github.com/sudocode/sudocode/internal/userenv"
)

func TestMain(m *testing.M) { os.Exit(testkit.RunWithPrivateState(m)) }

// fleetOptions are short enough that a lost lease shows within a test.
func fleetOptions() fleet.Options {
	return fleet.Options{LeaseTTL: testkit.Scale(2 * time.Second), Heartbeat: testkit.Scale(500 * time.Millisecond)}
}

// coordinator is a project, its fleet (embedded) and its orchestrator
// running tasks through it.
type coordinator struct {
	repo, key, dir string
	mirror         string // the workers' repository
	host           *Host
	o              *orchestrator.Orchestrator
}

func newCoordinator(t *testing.T, repo string, workers ...string) (*coordinator, map[string]natsbus.Creds) {
	t.Helper()
	ctx := testkit.Context(t, 60*time.Second)
	key, err := RepoKey(ctx, repo)
	if err != nil {
		t.Fatal(err)
	}
	c := &coordinator{repo: repo, key: key, dir: t.TempDir()}
	creds := map[string]natsbus.Creds{}
	for _, w := range workers {
		cr, err := OpenRegistry(c.dir).Issue(w, []string{key}, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		creds[w] = cr
	}
	if c.host, err = StartHost(ctx, HostOptions{Dir: c.dir, Fleet: fleetOptions(), RegistryPoll: 50 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.host.Close)
	for w, cr := range creds {
		cr.CA = c.host.CA // as workers add pins it once the host made it
		creds[w] = cr
	}
	mirror, err := Mirror(ctx, repo, c.dir)
	if err != nil {
		t.Fatal(err)
	}
	o, closeO, err := orchestrator.Open(ctx, t.TempDir(), orchestrator.Options{Repo: repo, Grace: time.Second,
		FlushEvery: 20 * time.Millisecond, Fleet: NewCoordinator(c.host.Fleet, key), Remote: mirror, PreferWorker: LocalWorker})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(closeO)
	c.o, c.mirror = o, mirror
	return c, creds
}

// startWorker runs worker name with its credentials until the returned
// stop is called (or the test ends).
func startWorker(t *testing.T, url string, cr natsbus.Creds, labels ...string) (stop func(), dir string) {
	t.Helper()
	return startWorkerSaving(t, url, cr, 50*time.Millisecond, labels...)
}

// startWorkerSaving is startWorker with checkpoints every every.
func startWorkerSaving(t *testing.T, url string, cr natsbus.Creds, every time.Duration, labels ...string) (stop func(), dir string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	nc, err := natsbus.Connect(ctx, url, cr)
	if err != nil {
		t.Fatal(err)
	}
	repos, err := ReadGrant(ctx, nc, cr.Name)
	if err != nil {
		t.Fatal(err)
	}
	f, err := fleet.OpenWorker(ctx, nc, fleetOptions())
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	w := &Worker{Fleet: f, Env: userenv.Of(os.Environ()), Dir: dir, Grace: time.Second, Checkpoint: every, Info: fleet.WorkerInfo{
		ID: cr.Name, Host: "test", Repos: repos, CLIs: []string{"command"}, Labels: labels, Slots: 2,
	}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = w.Run(ctx)
	}()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			<-done
			nc.Close()
		})
	}
	t.Cleanup(stop)
	return stop, dir
}

func shell(script string) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"command": []string{"sh", "-c", script}})
	return b
}

const agentCommit = `git -c user.name=Agent -c user.email=agent@example.com commit -qm`

func (c *coordinator) wait(t *testing.T, id string) orchestrator.Task {
	t.Helper()
	ctx := testkit.Context(t, 60*time.Second)
	if err := c.o.Wait(ctx, id); err != nil {
		t.Fatal(err)
	}
	task, err := c.o.Get(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return task
}

func logText(t *testing.T, o *orchestrator.Orchestrator, id string) string {
	t.Helper()
	logs, err := o.Logs(context.Background(), id, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range logs {
		b.WriteString(e.Event.Text + "\n")
	}
	return b.String()
}

// A task's run goes over NATS JetStream to a worker holding credentials
// for the repository; it runs the agent in its own clone and pushes the
// work back, which the coordinator's branch then holds.
func TestTaskRunsOnAWorker(t *testing.T) {
	repo := testkit.Repo(t)
	c, creds := newCoordinator(t, repo, "w1")
	startWorker(t, c.host.URL, creds["w1"])
	task, err := c.o.Create(context.Background(), orchestrator.CreateInput{Agent: "COMMAND", Description: "Remote edit",
		Config: shell(`echo remote > made.txt && git add made.txt && ` + agentCommit + ` "agent edit" && echo done`)})
	if err != nil {
		t.Fatal(err)
	}
	task = c.wait(t, task.ID)
	if task.Status != orchestrator.StatusCompleted {
		t.Fatalf("task %+v, error %+v\nlog:\n%s", task, task.Error.Details, logText(t, c.o, task.ID))
	}
	if got := testkit.Git(t, repo, "log", "--format=%s", task.BaseSHA+".."+task.Branch); got != "agent edit" {
		t.Fatalf("the branch's log %q", got)
	}
	if log := logText(t, c.o, task.ID); !strings.Contains(log, "taken by worker w1") || !strings.Contains(log, "done") {
		t.Fatalf("log:\n%s", log)
	}
	// agent://status shows the worker.
	ov, err := c.o.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(ov.Workers) != 1 || ov.Workers[0].ID != "w1" || strings.Join(ov.Workers[0].Agents, ",") != "command" || ov.Workers[0].Slots != 2 {
		t.Fatalf("the status's workers: %+v (%s)", ov.Workers, ov.WorkersProblem)
	}
	// Its kinds are the workers': COMMAND runs (w1 has it), Claude Code
	// waits for a worker with it, whatever this machine has.
	for _, k := range ov.Kinds {
		want := k.Kind == "COMMAND"
		if k.Available != want || !want && !strings.Contains(k.Problem, "no worker of the fleet connected now has it") {
			t.Errorf("kind %+v, want available %v", k, want)
		}
	}
}

// holdScript prints started, waits for a file named release in its
// worktree, then commits and prints finished.
const holdScript = `echo started; while [ ! -f release ]; do sleep 0.02; done; echo x > work.txt; git add work.txt && ` + agentCommit + ` "work" && echo finished`

// release lets holdScript of task id go on in the worktree of the worker
// whose directory is dir, once the worker has made it.
func release(t *testing.T, dir, id string) {
	t.Helper()
	var wt string
	testkit.WaitFor(t, 30*time.Second, "the worktree of task "+id+" under "+dir, func() bool {
		paths, _ := filepath.Glob(filepath.Join(dir, "worktrees", "*", id))
		if len(paths) == 1 {
			wt = paths[0]
		}
		return wt != ""
	})
	if err := os.WriteFile(filepath.Join(wt, "release"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
}

// waitLogged waits until task id's log has a line text.
func waitLogged(t *testing.T, o *orchestrator.Orchestrator, id, text string) {
	t.Helper()
	testkit.WaitFor(t, 30*time.Second, "the line "+text+" in the log of task "+id, func() bool {
		return strings.Contains("\n"+logText(t, o, id), "\n"+text+"\n")
	})
}

// A worker that stops mid-run gives it back: another worker takes it at
// once (the log says it was offered again) and finishes it from the
// task's branch; the agent's work is done once.
func TestAStoppedWorkersRunGoesToAnother(t *testing.T) {
	repo := testkit.Repo(t)
	c, creds := newCoordinator(t, repo, "w1", "w2")
	stop1, _ := startWorker(t, c.host.URL, creds["w1"])
	task, err := c.o.Create(context.Background(), orchestrator.CreateInput{Agent: "COMMAND", Description: "Hand over", Config: shell(holdScript)})
	if err != nil {
		t.Fatal(err)
	}
	waitLogged(t, c.o, task.ID, "run 1 taken by worker w1")
	waitLogged(t, c.o, task.ID, "started")
	_, dir2 := startWorker(t, c.host.URL, creds["w2"])
	stop1()
	release(t, dir2, task.ID)
	task = c.wait(t, task.ID)
	log := logText(t, c.o, task.ID)
	if task.Status != orchestrator.StatusCompleted {
		t.Fatalf("task %+v\nlog:\n%s", task, log)
	}
	if !strings.Contains(log, "run 1 taken by worker w2 (offered again: attempt 2") {
		t.Fatalf("the log does not say w2 took the run again:\n%s", log)
	}
	if n := strings.Count(log, "\nfinished\n"); n != 1 {
		t.Fatalf("finished %d times:\n%s", n, log)
	}
	// The worker commits what the agent left (the test's release file).
	if got := testkit.Git(t, repo, "log", "--format=%s", task.BaseSHA+".."+task.Branch); !strings.HasSuffix(got, "\nwork") {
		t.Fatalf("the branch's log %q lacks the agent's commit", got)
	}
}

// A run no connected worker can take says so in its task's log, and
// runs once a worker that can joins.
func TestARunWaitingForAWorkerSaysSo(t *testing.T) {
	repo := testkit.Repo(t)
	c, creds := newCoordinator(t, repo, "w1")
	task, err := c.o.Create(context.Background(), orchestrator.CreateInput{Agent: "COMMAND", Description: "Wait", Config: shell(`echo ran`)})
	if err != nil {
		t.Fatal(err)
	}
	waitLogged(t, c.o, task.ID, "no worker connected now can run COMMAND: the run waits for one (see sudocode workers)")
	startWorker(t, c.host.URL, creds["w1"])
	if task = c.wait(t, task.ID); task.Status != orchestrator.StatusCompleted {
		t.Fatalf("task %+v", task)
	}
}

// The worker in the coordinator's process works over its checkout: a run
// offered to it first goes into the task's worktree itself, with no clone,
// fetch or push, as a run without the fleet does.
func TestTheCoordinatorsWorkerRunsInPlace(t *testing.T) {
	repo := testkit.Repo(t)
	c, _ := newCoordinator(t, repo)
	dir := t.TempDir()
	w := &Worker{Fleet: c.host.Fleet, Env: userenv.Of(os.Environ()), Dir: dir, Grace: time.Second,
		Checkouts: map[string]string{c.key: repo},
		Info:      fleet.WorkerInfo{ID: LocalWorker, Host: "test", Repos: []string{c.key}, CLIs: []string{"command"}, Slots: 2}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = w.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	task, err := c.o.Create(context.Background(), orchestrator.CreateInput{Agent: "COMMAND", Description: "In place",
		Config: shell(`echo here > here.txt && git add here.txt && ` + agentCommit + ` "in place" && echo left > loose.txt`)})
	if err != nil {
		t.Fatal(err)
	}
	task = c.wait(t, task.ID)
	if task.Status != orchestrator.StatusCompleted {
		t.Fatalf("task %+v", task)
	}
	if log := logText(t, c.o, task.ID); !strings.Contains(log, "taken by worker local") {
		t.Fatalf("log:\n%s", log)
	}
	if got := testkit.Git(t, repo, "log", "--format=%s", task.BaseSHA+".."+task.Branch); got != "in place" {
		t.Fatalf("the branch's log %q, want the agent's commit alone: in place, nothing is committed for it", got)
	}
	if b, err := os.ReadFile(filepath.Join(task.WorktreePath, "loose.txt")); err != nil || string(b) != "left\n" {
		t.Fatalf("loose.txt in the task's worktree: %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "repos")); !os.IsNotExist(err) {
		t.Fatalf("the worker made a clone: %v", err)
	}
}
