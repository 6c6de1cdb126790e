package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/orchestrator/agent"
	"github.com/sudocode/sudocode/internal/testkit"
)

// memFleet is the fleet as an in-memory transport between a coordinator
// and a worker orchestrator of one test process (the NATS one is tested
// with them in internal/fleetrun): every offer runs at once on the worker.
type memFleet struct {
	worker *Orchestrator

	mu      sync.Mutex
	changed chan struct{} // closed and replaced at every message
	msgs    map[string][]RunMessage
	cancels map[string]context.CancelCauseFunc
	seq     uint64
	offers  int
	runs    sync.WaitGroup
	// failWatches Watch calls fail, and breakWatches watches end after
	// their first message, as when the fleet's server is lost.
	failWatches, breakWatches int
	// lose loses the offers made meanwhile, as a coordinator killed
	// before its offer was made would.
	lose bool
	// delivery is the offers' count of deliveries; 0 for 1, the first.
	delivery int
}

func newMemFleet(worker *Orchestrator) *memFleet {
	return &memFleet{worker: worker, changed: make(chan struct{}), msgs: map[string][]RunMessage{}, cancels: map[string]context.CancelCauseFunc{}}
}

func runKey(task string, run int) string { return fmt.Sprintf("%s/%d", task, run) }

func (f *memFleet) Offer(_ context.Context, a Assignment) error {
	ctx, cancel := context.WithCancelCause(context.Background())
	f.mu.Lock()
	if f.lose {
		f.mu.Unlock()
		cancel(nil)
		return nil
	}
	f.offers++
	f.cancels[runKey(a.Task, a.Run)] = cancel
	delivery := max(f.delivery, 1)
	f.mu.Unlock()
	f.runs.Add(1)
	go func() {
		defer f.runs.Done()
		_ = f.worker.Perform(ctx, a, delivery, func(kind string, body []byte) error {
			f.mu.Lock()
			defer f.mu.Unlock()
			f.seq++
			k := runKey(a.Task, a.Run)
			f.msgs[k] = append(f.msgs[k], RunMessage{Seq: f.seq, Kind: kind, Worker: f.worker.opts.WorkerID, Body: body})
			close(f.changed)
			f.changed = make(chan struct{})
			return nil
		})
	}()
	return nil
}

func (f *memFleet) Cancel(_ context.Context, task string, run int) error {
	f.mu.Lock()
	cancel := f.cancels[runKey(task, run)]
	f.mu.Unlock()
	if cancel != nil {
		cancel(ErrStopRequested)
	}
	return nil
}

func (f *memFleet) Capable(context.Context, string, []string) (bool, error) { return true, nil }

func (f *memFleet) Workers(context.Context) ([]Worker, error) {
	return []Worker{{ID: "w1", Host: "test", Agents: []string{"command"}, Slots: 1}}, nil
}

func (f *memFleet) Watch(ctx context.Context, task string, run int, after uint64) (<-chan RunMessage, error) {
	f.mu.Lock()
	fail, brk := f.failWatches > 0, f.breakWatches > 0
	if fail {
		f.failWatches--
	} else if brk {
		f.breakWatches--
	}
	f.mu.Unlock()
	if fail {
		return nil, errors.New("no responders")
	}
	ch := make(chan RunMessage)
	go func() {
		defer close(ch)
		for {
			f.mu.Lock()
			var next []RunMessage
			for _, m := range f.msgs[runKey(task, run)] {
				if m.Seq > after {
					next = append(next, m)
				}
			}
			changed := f.changed
			f.mu.Unlock()
			for _, m := range next {
				select {
				case ch <- m:
					after = m.Seq
				case <-ctx.Done():
					return
				}
				if brk {
					return // the watch broke
				}
			}
			select {
			case <-changed:
			case <-ctx.Done():
				return
			}
		}
	}()
	return ch, nil
}

// remoteFixture is a coordinator over repo whose runs go to a worker
// orchestrator over a clone of it, as a worker on another machine has.
type remoteFixture struct {
	*fixture
	fleet    *memFleet
	worker   *Orchestrator
	worktree string       // the worker's worktree root
	wad      *fakeAdapter // the worker's FAKE agent
}

func newRemoteFixture(t *testing.T, repo string, edit ...func(*Options)) *remoteFixture {
	t.Helper()
	clone := filepath.Join(t.TempDir(), "clone")
	testkit.Git(t, filepath.Dir(clone), "clone", "-q", repo, clone)
	wstore, err := OpenStore(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	wad := &fakeAdapter{}
	lookup := func(kind string) (agent.Adapter, bool) {
		if kind == "FAKE" {
			return wad, true
		}
		return lookupAdapter(kind)
	}
	worker := idle(wstore, lookup, Options{Repo: clone, Worktrees: root, Grace: 500 * time.Millisecond, FlushEvery: 10 * time.Millisecond, WorkerID: "w1",
		CheckpointEvery: 20 * time.Millisecond})
	fleet := newMemFleet(worker)
	f := newFixture(t, repo, append([]func(*Options){func(o *Options) { o.Fleet = fleet }}, edit...)...)
	t.Cleanup(func() {
		fleet.runs.Wait()
		worker.Close()
		wstore.Close()
	})
	return &remoteFixture{fixture: f, fleet: fleet, worker: worker, worktree: root, wad: wad}
}

// A task's run goes to a worker, which runs the agent in its own clone
// and pushes the work back: the coordinator's branch and worktree then
// hold the agent's commit and what it left uncommitted, and the task's
// log and result are those of a local run, with the worker named.
func TestRemoteRunBringsTheWorkBack(t *testing.T) {
	repo := testkit.Repo(t)
	f := newRemoteFixture(t, repo)
	task := f.create(t, CreateInput{Agent: "COMMAND", Description: "Edit remotely", Config: shell(
		`echo remote > made.txt && git add made.txt && ` + agentCommit + ` "agent edit" && echo left > loose.txt && echo done`)})
	task = f.wait(t, task.ID)
	if task.Status != StatusCompleted || task.Error != nil {
		t.Fatalf("task %+v", task)
	}
	if got := testkit.Git(t, repo, "log", "--format=%s", task.BaseSHA+".."+task.Branch); !strings.Contains(got, "agent edit") {
		t.Fatalf("the coordinator's branch log %q lacks the agent's commit", got)
	}
	for name, want := range map[string]string{"made.txt": "remote\n", "loose.txt": "left\n"} {
		if b, err := os.ReadFile(filepath.Join(task.WorktreePath, name)); err != nil || string(b) != want {
			t.Errorf("%s in the coordinator's worktree: %q, %v", name, b, err)
		}
	}
	res := resultOf(t, task)
	if res.Outcome != OutcomeSucceeded || strings.Join(res.FilesChanged, ",") != "loose.txt,made.txt" {
		t.Fatalf("result %+v", res)
	}
	logs, err := f.o.Logs(context.Background(), task.ID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var text []string
	for _, e := range logs {
		text = append(text, e.Event.Text)
	}
	all := strings.Join(text, "\n")
	for _, want := range []string{"run 1 offered to the workers", "run 1 taken by worker w1", "done", "2 files changed"} {
		if !strings.Contains(all, want) {
			t.Errorf("the log lacks %q:\n%s", want, all)
		}
	}
}

// blockScript prints started and waits for a file named release in its
// worktree, then commits a file.
const blockScript = `echo started; while [ ! -f release ]; do sleep 0.02; done; echo after > after.txt && git add after.txt && ` + agentCommit + ` "after release" && echo finished`

// release lets blockScript of task id go on, in the worker's worktree.
func (f *remoteFixture) release(t *testing.T, id string) {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(f.worktree, "*", id))
	if len(paths) != 1 {
		t.Fatalf("the worker's worktree of task %s: %v", id, paths)
	}
	if err := os.WriteFile(filepath.Join(paths[0], "release"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
}

// waitLogged waits until task id's log has an event whose text is text.
func waitLogged(t *testing.T, o *Orchestrator, id, text string) {
	t.Helper()
	testkit.WaitFor(t, 30*time.Second, "the event "+text+" in the log of task "+id, func() bool {
		logs, _ := o.Logs(context.Background(), id, 0, 0)
		for _, e := range logs {
			if e.Event.Text == text {
				return true
			}
		}
		return false
	})
}

// A coordinator that stops while a worker runs a task leaves the run to
// the worker; the next coordinator over the same store reads on from
// where the last one stopped, and finishes the run: nothing of its log is
// lost or stored twice.
func TestRemoteRunOutlivesTheCoordinator(t *testing.T) {
	repo := testkit.Repo(t)
	f := newRemoteFixture(t, repo)
	task := f.create(t, CreateInput{Agent: "COMMAND", Description: "Outlive", Config: shell(blockScript)})
	waitLogged(t, f.o, task.ID, "started")
	f.o.Close() // the coordinator stops; the worker goes on
	if got, _ := f.o.Get(context.Background(), task.ID); got.Status != StatusInProgress {
		t.Fatalf("after the coordinator stopped the task is %s, want in_progress", got.Status)
	}
	// What a new server process finds: OpenStore's recovery leaves it.
	o2 := f.restart(t, repo)
	f.release(t, task.ID)
	ctx := testkit.Context(t, 30*time.Second)
	if err := o2.Wait(ctx, task.ID); err != nil {
		t.Fatal(err)
	}
	got, err := o2.Get(ctx, task.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != StatusCompleted {
		t.Fatalf("task %+v", got)
	}
	if b, err := os.ReadFile(filepath.Join(got.WorktreePath, "after.txt")); err != nil || string(b) != "after\n" {
		t.Fatalf("after.txt in the coordinator's worktree: %q, %v", b, err)
	}
	logs, _ := o2.Logs(ctx, task.ID, 0, 0)
	count := map[string]int{}
	for _, e := range logs {
		count[e.Event.Text]++
	}
	if count["started"] != 1 || count["finished"] != 1 {
		t.Fatalf("started logged %d times, finished %d times, want once each", count["started"], count["finished"])
	}
}

// end_task of a task running on a worker stops its agent there: the task
// ends cancelled, with what the agent had done brought back.
func TestRemoteRunEnds(t *testing.T) {
	repo := testkit.Repo(t)
	f := newRemoteFixture(t, repo)
	task := f.create(t, CreateInput{Agent: "COMMAND", Description: "Stop me", Config: shell(`echo partial > partial.txt; ` + blockScript)})
	waitLogged(t, f.o, task.ID, "started")
	// The worker saves the run's work in the workers' repository (here
	// the checkout), until the run ends.
	testkit.WaitFor(t, 30*time.Second, "the run's checkpoint", func() bool {
		return testkit.GitCmd(repo, "cat-file", "-e", CheckpointRef(task.ID, 1)+":partial.txt").Run() == nil
	})
	if _, err := f.o.End(context.Background(), task.ID, EndInput{}); err != nil {
		t.Fatal(err)
	}
	got := f.wait(t, task.ID)
	if got.Status != StatusCancelled {
		t.Fatalf("task %+v", got)
	}
	if refs := testkit.Git(t, repo, "for-each-ref", "refs/sudocode/"); refs != "" {
		t.Fatalf("the ended run's refs are kept: %s", refs)
	}
	done := make(chan struct{})
	go func() { f.fleet.runs.Wait(); close(done) }()
	testkit.Receive(t, 30*time.Second, "the worker's run to end", done)
	logs, _ := f.o.Logs(context.Background(), task.ID, 0, 0)
	for _, e := range logs {
		if e.Event.Text == "finished" {
			t.Fatal("the agent ran on after end_task")
		}
	}
}

// A run its worker cannot start (here: the repository it names cannot be
// fetched, and the worker's clone lacks the run's commit) ends the task
// failed to start, with the worker's reason.
func TestRemoteRunThatCannotStartFails(t *testing.T) {
	repo := testkit.Repo(t)
	f := newRemoteFixture(t, repo, func(o *Options) { o.WorkerRemote = filepath.Join(t.TempDir(), "gone") })
	commitAfterTheClone(t, repo)
	task := f.create(t, CreateInput{Agent: "COMMAND", Description: "Cannot fetch", Config: shell("echo never")})
	task = f.wait(t, task.ID)
	if task.Status != StatusFailed || task.Error == nil || task.Error.Type != ErrTypeStart || !strings.Contains(task.Error.Details.Message, "gone") {
		t.Fatalf("task %+v, error %+v", task, task.Error)
	}
}

// A watch the fleet cannot open, or that breaks mid-run, is opened again
// from the last message read: the run finishes with every event once.
func TestRemoteRunReadsOnWhenTheWatchBreaks(t *testing.T) {
	repo := testkit.Repo(t)
	f := newRemoteFixture(t, repo)
	f.fleet.failWatches, f.fleet.breakWatches = 2, 3
	task := f.create(t, CreateInput{Agent: "COMMAND", Description: "Flaky fleet", Config: shell(`echo one; echo two; echo three`)})
	task = f.wait(t, task.ID)
	if task.Status != StatusCompleted {
		t.Fatalf("task %+v", task)
	}
	logs, _ := f.o.Logs(context.Background(), task.ID, 0, 0)
	count := map[string]int{}
	for _, e := range logs {
		count[e.Event.Text]++
	}
	for _, line := range []string{"one", "two", "three", "run 1 taken by worker w1"} {
		if count[line] != 1 {
			t.Errorf("%q logged %d times, want once", line, count[line])
		}
	}
}

// Workers may work against a repository of their own (a bare mirror
// borrowing the checkout's objects), not the user's: nothing is pushed
// there before the run is offered, the worker fetches the run's commit
// from there by its id (a commit made after the mirror and the worker's
// clone, which neither has a ref for), and the run's work is fetched
// from there and its ref removed on both sides once the branch has it.
func TestRemoteRunThroughAMirror(t *testing.T) {
	repo := testkit.Repo(t)
	mirror := filepath.Join(t.TempDir(), "mirror.git")
	testkit.Git(t, filepath.Dir(mirror), "clone", "-q", "--bare", "--shared", repo, mirror)
	f := newRemoteFixture(t, repo, func(o *Options) { o.Remote = mirror })
	commitAfterTheClone(t, repo)
	task := f.create(t, CreateInput{Agent: "COMMAND", Description: "Via the mirror", Config: shell(
		`echo m > m.txt && git add m.txt && ` + agentCommit + ` "mirrored" && echo done`)})
	task = f.wait(t, task.ID)
	if task.Status != StatusCompleted {
		t.Fatalf("task %+v", task)
	}
	if got := testkit.Git(t, repo, "log", "--format=%s", task.BaseSHA+".."+task.Branch); got != "mirrored" {
		t.Fatalf("the branch's log %q", got)
	}
	for _, dir := range []string{repo, mirror} {
		if refs := testkit.Git(t, dir, "for-each-ref", "refs/sudocode/"); refs != "" {
			t.Errorf("run refs left in %s: %s", dir, refs)
		}
	}
	if got := testkit.Git(t, mirror, "for-each-ref", "refs/heads/"+task.Branch); got != "" {
		t.Errorf("the task's branch was pushed to the mirror: %s", got)
	}
}

// commitAfterTheClone commits a file in repo, made after the remote
// fixture's clone: a task started now starts from a commit the worker
// has yet to fetch.
func commitAfterTheClone(t *testing.T, repo string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(repo, "later.txt"), []byte("later\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	testkit.Git(t, repo, "add", "later.txt")
	testkit.Git(t, repo, "commit", "-qm", "later")
}

// A worker takes only git's identity from an offer's identity variables:
// a coordinator's offer cannot set the agent's environment otherwise.
func TestIdentityOnly(t *testing.T) {
	got := identityOnly([]string{"GIT_AUTHOR_NAME=Ann", "LD_PRELOAD=/tmp/x.so", "GIT_COMMITTER_EMAIL=a@b", "PATH=/evil", "GIT_AUTHOR_NAMEX=y"})
	if strings.Join(got, " ") != "GIT_AUTHOR_NAME=Ann GIT_COMMITTER_EMAIL=a@b" {
		t.Fatalf("identityOnly kept %q", got)
	}
}

// A follow-up resumes the agent's session on the worker that ran the run
// before, where the CLI keeps it; on another worker (the first one gone,
// or busy past its head start) the CLI would not find the session: the
// run starts a new one, told the task's instructions and that the work
// so far is on the branch, and the task's log says so.
func TestRemoteFollowUpResumesOnlyWhereTheSessionIs(t *testing.T) {
	script := `if [ -z "$FAKE_RESUME" ]; then echo SESSION s7; fi; echo DONE ok`
	for _, tc := range []struct {
		name, worker string
		resumed      bool
	}{{"the same worker", "w1", true}, {"another worker", "w2", false}} {
		t.Run(tc.name, func(t *testing.T) {
			f := newRemoteFixture(t, testkit.Repo(t))
			ctx := context.Background()
			task, err := f.o.Create(ctx, CreateInput{Agent: "FAKE", Description: "Paint the shed", Config: cfg(script)})
			if err != nil {
				t.Fatal(err)
			}
			if task = f.wait(t, task.ID); task.Status != StatusWaiting || task.SessionID != "s7" {
				t.Fatalf("after run 1: %+v", task)
			}
			f.worker.opts.WorkerID = tc.worker // run 2 goes to this worker
			if _, err := f.o.Update(ctx, task.ID, UpdateInput{Instructions: "the blue one"}); err != nil {
				t.Fatal(err)
			}
			f.wait(t, task.ID)
			spec := f.wad.lastSpec()
			if tc.resumed {
				if spec.ResumeSession != "s7" || spec.Instructions != "the blue one" {
					t.Fatalf("on the session's worker: resume %q, instructions %q", spec.ResumeSession, spec.Instructions)
				}
				return
			}
			if spec.ResumeSession != "" || !strings.Contains(spec.Instructions, "Paint the shed") || !strings.HasSuffix(spec.Instructions, "the blue one") {
				t.Fatalf("on another worker: resume %q, instructions %q", spec.ResumeSession, spec.Instructions)
			}
			waitLogged(t, f.o, task.ID, "the agent's session s7 is on worker w1: this run starts a new session, from the task's branch and instructions")
		})
	}
}

// A worker over a clone gives its agents the tracker of the task's
// worktree there (the clone's own checkout is not the user's tracker):
// what they file is committed with the run's work and merged with it.
func TestRemoteRunGivesTheWorktreesTracker(t *testing.T) {
	repo := testkit.RepoOf(t, map[string]string{".sudocode/config.json": "{}\n"})
	f := newRemoteFixture(t, repo)
	f.worker.opts.Tracker = []string{"sudocode", "mcp"}
	task, err := f.o.Create(context.Background(), CreateInput{Agent: "FAKE", Description: "File an issue", Config: cfg(`echo DONE ok`)})
	if err != nil {
		t.Fatal(err)
	}
	f.wait(t, task.ID)
	spec := f.wad.lastSpec()
	if len(spec.MCPServers) != 1 || spec.MCPServers[0].Env["SUDOCODE_WORKING_DIR"] != spec.Dir || !strings.HasPrefix(spec.Dir, f.worktree) {
		t.Fatalf("the agent's MCP servers %+v, its directory %s (the worker's worktrees are under %s)", spec.MCPServers, spec.Dir, f.worktree)
	}
}

// A coordinator killed after it recorded a run but before its offer was
// made leaves the run to the next one, which offers it again: the task
// runs and ends, not stuck in progress with no worker ever told.
func TestRemoteRunOfferedAgainAfterARestart(t *testing.T) {
	repo := testkit.Repo(t)
	f := newRemoteFixture(t, repo)
	f.fleet.mu.Lock()
	f.fleet.lose = true
	f.fleet.mu.Unlock()
	task := f.create(t, CreateInput{Agent: "COMMAND", Description: "Offer lost", Config: shell(`echo ran`)})
	f.o.Close()
	f.fleet.mu.Lock()
	f.fleet.lose = false
	f.fleet.mu.Unlock()
	o2 := f.restart(t, repo)
	ctx := testkit.Context(t, 30*time.Second)
	if err := o2.Wait(ctx, task.ID); err != nil {
		t.Fatal(err)
	}
	if got, err := o2.Get(ctx, task.ID); err != nil || got.Status != StatusCompleted {
		t.Fatalf("task %+v, %v", got, err)
	}
	waitLogged(t, o2, task.ID, "ran")
}

// restart is what a new server process finds over the coordinator's
// store: OpenStore's recovery, then ResumeFleet.
func (f *remoteFixture) restart(t *testing.T, repo string) *Orchestrator {
	t.Helper()
	s2, err := OpenStore(context.Background(), f.data)
	if err != nil {
		t.Fatal(err)
	}
	o2 := idle(s2, lookupAdapter, Options{Repo: repo, Grace: 500 * time.Millisecond, FlushEvery: 10 * time.Millisecond, Fleet: f.fleet})
	t.Cleanup(func() {
		o2.Close()
		s2.Close()
	})
	if err := o2.ResumeFleet(context.Background()); err != nil {
		t.Fatal(err)
	}
	return o2
}

// A run offered again to the worker over the coordinator's checkout goes
// on in the task's worktree, which holds what the lost run's agent had
// done: the agent is told so, and the log says where the run went on.
func TestRemoteRunTakenUpAgainInPlace(t *testing.T) {
	repo := testkit.Repo(t)
	wstore, err := OpenStore(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	worker := idle(wstore, lookupAdapter, Options{Repo: repo, InPlace: true, Grace: 500 * time.Millisecond, FlushEvery: 10 * time.Millisecond, WorkerID: "local"})
	fleet := newMemFleet(worker)
	fleet.delivery = 2
	f := newFixture(t, repo, func(o *Options) { o.Fleet = fleet })
	t.Cleanup(func() {
		fleet.runs.Wait()
		worker.Close()
		wstore.Close()
	})
	task := f.create(t, CreateInput{Agent: "COMMAND", Description: "In place again", Config: shell(`grep -q interrupted && echo told`)})
	if task = f.wait(t, task.ID); task.Status != StatusCompleted {
		t.Fatalf("task %+v", task)
	}
	waitLogged(t, f.o, task.ID, "told")
	waitLogged(t, f.o, task.ID, "run 1 taken up again by worker local in the task's worktree, which holds what the agent had done")
}
