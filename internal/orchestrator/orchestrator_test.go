package orchestrator

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/orchestrator/agent"
	"github.com/sudocode/sudocode/internal/proctest"
	"github.com/sudocode/sudocode/internal/testkit"
)

// fakeAdapter runs config.script with /bin/sh -c. Its parser understands
// "SESSION <id>" and "DONE ok|fail <text>"; other lines are logs.
type fakeAdapter struct {
	mu    sync.Mutex
	specs []agent.RunSpec
}

func (a *fakeAdapter) Kind() string              { return "FAKE" }
func (a *fakeAdapter) Check(agent.RunSpec) error { return nil }
func (a *fakeAdapter) NewParser() agent.Parser   { return &fakeParser{} }
func (a *fakeAdapter) Credentials() []string     { return nil }
func (a *fakeAdapter) lastSpec() agent.RunSpec {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.specs[len(a.specs)-1]
}
func (a *fakeAdapter) Invocation(s agent.RunSpec) (agent.Invocation, error) {
	a.mu.Lock()
	a.specs = append(a.specs, s)
	a.mu.Unlock()
	script, _ := s.Config["script"].(string)
	return agent.Invocation{
		Argv:  []string{"/bin/sh", "-c", script},
		Env:   []string{"FAKE_RESUME=" + s.ResumeSession},
		Stdin: s.Instructions,
	}, nil
}

type fakeParser struct {
	session string
	done    bool
}

func (p *fakeParser) SessionID() string { return p.session }
func (p *fakeParser) Line(line []byte, now time.Time) []agent.Event {
	s := string(line)
	switch {
	case strings.HasPrefix(s, "SESSION "):
		p.session = strings.TrimPrefix(s, "SESSION ")
		return []agent.Event{{Time: now, Kind: agent.KindMessage, SessionID: p.session, Text: "session started"}}
	case strings.HasPrefix(s, "DONE "):
		p.done = true
		f := strings.SplitN(s, " ", 3)
		ok := f[1] == "ok"
		e := agent.Event{Time: now, Kind: agent.KindCompletion, Success: &ok}
		if len(f) == 3 {
			e.Text = f[2]
		}
		return []agent.Event{e}
	}
	return []agent.Event{{Time: now, Kind: agent.KindLog, Text: s}}
}
func (p *fakeParser) Finish(code int, now time.Time) []agent.Event {
	if p.done {
		return nil
	}
	ok := code == 0
	return []agent.Event{{Time: now, Kind: agent.KindCompletion, Success: &ok}}
}

type fixture struct {
	repo  string
	data  string
	store *Store
	o     *Orchestrator
	ad    *fakeAdapter

	mu      sync.Mutex
	changes []Change
}

// newFixture opens an orchestrator on repo with a fresh store; its tools
// are FAKE and the real adapters. edit adjusts the options.
func newFixture(t *testing.T, repo string, edit ...func(*Options)) *fixture {
	t.Helper()
	f := &fixture{repo: repo, data: t.TempDir(), ad: &fakeAdapter{}}
	s, err := OpenStore(context.Background(), f.data)
	if err != nil {
		t.Fatal(err)
	}
	f.store = s
	opts := Options{Repo: repo, Grace: 500 * time.Millisecond, FlushEvery: 10 * time.Millisecond, Actor: "tester"}
	for _, e := range edit {
		e(&opts)
	}
	f.o = New(s, func(kind string) (agent.Adapter, bool) {
		if kind == "FAKE" {
			return f.ad, true
		}
		if a, ok := replayAdapters[kind]; ok {
			return a, true
		}
		a, err := agent.Lookup(kind)
		return a, err == nil
	}, opts)
	f.o.Subscribe(func(c Change) {
		f.mu.Lock()
		f.changes = append(f.changes, c)
		f.mu.Unlock()
	})
	t.Cleanup(func() {
		f.o.Close()
		s.Close()
	})
	return f
}

func cfg(script string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"script": script})
	return b
}

func (f *fixture) wait(t *testing.T, id string) Task {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := f.o.Wait(ctx, id); err != nil {
		t.Fatal(err)
	}
	task, err := f.o.Get(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return task
}

const commitScript = `cat > prompt.txt
echo SESSION s1
echo "work" > work.txt
git add work.txt prompt.txt
git -c user.name=Agent -c user.email=agent@example.com commit -qm "agent work"
echo DONE ok all done
`

func noPool(o *Options) { o.NoPool = true }

// A run that succeeds with a session waits for more instructions; ending
// it keeps the branch and completes it.
func TestCreateRunWaiting(t *testing.T) {
	repo := testkit.Repo(t)
	// Uncommitted work in the user's checkout must survive.
	os.WriteFile(filepath.Join(repo, "README"), []byte("user edit\n"), 0o644)
	os.WriteFile(filepath.Join(repo, "notes.txt"), []byte("untracked\n"), 0o644)
	f := newFixture(t, repo)
	ctx := context.Background()
	task, err := f.o.Create(ctx, CreateInput{Agent: "FAKE", Description: "Add the work file!", Instructions: "do the work", Config: cfg(commitScript)})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(task.Branch, "sudocode/add-the-work-file-"+task.ID) || task.Status != StatusInProgress || task.Actor != "tester" {
		t.Fatalf("created task: %+v", task)
	}
	if spec := f.ad.lastSpec(); spec.Dir != task.WorktreePath || spec.ResumeSession != "" {
		t.Fatalf("spec: %+v", spec)
	}
	task = f.wait(t, task.ID)
	if task.Status != StatusWaiting || task.SessionID != "s1" || task.Error != nil || task.StartedAt == nil || task.FinishedAt == nil {
		t.Fatalf("task after run: %+v", task)
	}
	var res map[string]any
	if err := json.Unmarshal(task.Result, &res); err != nil || res["commits"] != float64(1) || res["message"] != "all done" {
		t.Fatalf("result %s (%v)", task.Result, err)
	}
	if got := testkit.Git(t, repo, "log", "-1", "--format=%s", task.Branch); got != "agent work" {
		t.Fatalf("branch tip %q", got)
	}
	if got := testkit.Git(t, repo, "show", task.Branch+":prompt.txt"); got != "do the work" {
		t.Fatalf("prompt on stdin: %q", got)
	}
	evs, err := f.o.Logs(ctx, task.ID, 0, 0)
	if err != nil || len(evs) != 3 || evs[0].Seq != 1 || evs[1].Event.Kind != agent.KindCompletion ||
		evs[2].Event.Kind != agent.KindFileChange || strings.Join(evs[2].Event.Files, ",") != "prompt.txt,work.txt" {
		t.Fatalf("events %+v (%v)", evs, err)
	}
	if later, _ := f.o.Logs(ctx, task.ID, 1, 0); len(later) != 2 || later[0].Seq != 2 {
		t.Fatalf("since 1: %+v", later)
	}
	// The user's checkout is untouched.
	if b, _ := os.ReadFile(filepath.Join(repo, "README")); string(b) != "user edit\n" {
		t.Fatalf("README = %q", b)
	}
	if _, err := os.Stat(filepath.Join(repo, "notes.txt")); err != nil {
		t.Fatal(err)
	}
	if got := testkit.Git(t, repo, "rev-parse", "--abbrev-ref", "HEAD"); got != "main" {
		t.Fatalf("main checkout on %q", got)
	}
	f.mu.Lock()
	kinds := map[string]int{}
	for _, c := range f.changes {
		kinds[c.Kind]++
	}
	f.mu.Unlock()
	if kinds[ChangeCreated] != 1 || kinds[ChangeUpdated] < 2 || kinds[ChangeLog] < 1 {
		t.Fatalf("changes %v", kinds)
	}

	end, err := f.o.End(ctx, task.ID, EndInput{KeepBranch: true})
	if err != nil {
		t.Fatal(err)
	}
	if end.Task.WorktreePath != "" || end.Task.Status != StatusCompleted || end.Removal.BranchDeleted {
		t.Fatalf("end %+v", end)
	}
	if _, err := os.Stat(task.WorktreePath); !os.IsNotExist(err) {
		t.Fatalf("worktree still there: %v", err)
	}
	testkit.Git(t, repo, "rev-parse", "--verify", "refs/heads/"+task.Branch)
}

func TestFailure(t *testing.T) {
	f := newFixture(t, testkit.Repo(t))
	task, err := f.o.Create(context.Background(), CreateInput{Agent: "FAKE", Description: "fail", Config: cfg("echo started; echo oops >&2; exit 3")})
	if err != nil {
		t.Fatal(err)
	}
	task = f.wait(t, task.ID)
	if task.Status != StatusFailed || task.Error == nil || task.Error.Type != ErrTypeExit {
		t.Fatalf("task %+v", task)
	}
	d, _ := json.Marshal(task.Error.Details)
	if !strings.Contains(string(d), "oops") || !strings.Contains(string(d), `"exit_code":3`) {
		t.Fatalf("details %s", d)
	}
	// Exit 0 with a failed completion is a failure too.
	task, err = f.o.Create(context.Background(), CreateInput{Agent: "FAKE", Description: "fail2", Config: cfg("echo DONE fail denied")})
	if err != nil {
		t.Fatal(err)
	}
	if task = f.wait(t, task.ID); task.Status != StatusFailed || task.Error.Type != ErrTypeAgent {
		t.Fatalf("task %+v", task)
	}
	// A long line (2 MB) arrives whole.
	task, err = f.o.Create(context.Background(), CreateInput{Agent: "FAKE", Description: "long", Config: cfg("head -c 2000000 /dev/zero | tr '\\0' a; echo")})
	if err != nil {
		t.Fatal(err)
	}
	if task = f.wait(t, task.ID); task.Status != StatusCompleted {
		t.Fatalf("task %+v", task)
	}
	evs, _ := f.o.Logs(context.Background(), task.ID, 0, 1)
	if len(evs) != 1 || len(evs[0].Event.Text) != 2000000 {
		t.Fatalf("long line lost")
	}
}

func TestEndKillsProcessGroup(t *testing.T) {
	repo := testkit.Repo(t)
	f := newFixture(t, repo, noPool)
	ctx := context.Background()
	script := `sh -c 'trap "" TERM; while :; do sleep 1; done' &
sleep 300 &
echo started
echo uncommitted > scratch.txt
wait`
	task, err := f.o.Create(ctx, CreateInput{Agent: "FAKE", Description: "long runner", Config: cfg(script)})
	if err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, 10*time.Second, "the agent to start", func() bool {
		evs, _ := f.o.Logs(ctx, task.ID, 0, 0)
		return len(evs) > 0 && len(proctest.GroupMembers(task.PID)) >= 3
	})
	// A log note while the agent runs shares the sequence with its events.
	if _, err := f.o.Update(ctx, task.ID, UpdateInput{Log: "note while running"}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.o.Update(ctx, task.ID, UpdateInput{Instructions: "more"}); !fault.Is(err, fault.Conflict) {
		t.Fatalf("instructions while running: %v", err)
	}
	end, err := f.o.End(ctx, task.ID, EndInput{})
	if err != nil {
		t.Fatal(err)
	}
	if evs, _ := f.o.Logs(ctx, task.ID, 0, 0); len(evs) < 2 || evs[len(evs)-1].Seq != int64(len(evs)) {
		t.Fatalf("log %+v", evs)
	}
	if end.Task.Status != StatusCancelled || !end.Removal.BranchDeleted || len(end.Removal.Discarded) == 0 {
		t.Fatalf("end %+v", end)
	}
	if m := proctest.GroupMembers(task.PID); len(m) != 0 {
		t.Fatalf("orphans left in group %d: %v", task.PID, m)
	}
	if testkit.GitCmd(repo, "rev-parse", "--verify", "--quiet", "refs/heads/"+task.Branch).Run() == nil {
		t.Fatal("branch not deleted")
	}
	if got := testkit.Git(t, repo, "worktree", "list", "--porcelain"); strings.Count(got, "worktree ") != 1 {
		t.Fatalf("worktrees left: %s", got)
	}
	if again, err := f.o.End(ctx, task.ID, EndInput{Status: StatusCompleted}); err != nil || again.Task.Status != StatusCancelled {
		t.Fatalf("second end: %+v %v", again, err)
	}
}

func deadPID(t *testing.T) int {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

func TestRestartRecovery(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	s, err := OpenStore(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	orphan := exec.Command("sleep", "300")
	orphanDir := t.TempDir()
	orphan.Dir = orphanDir
	orphan.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := orphan.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { orphan.Wait(); close(exited) }()
	now := time.Now().UTC()
	dead := deadPID(t)
	put := func(id string, st Status, pid int) {
		if err := s.Put(ctx, Task{ID: id, Agent: "FAKE", Description: id, Status: st, PID: pid, OwnerPID: dead, WorktreePath: orphanDir, CreatedAt: now, UpdatedAt: now}); err != nil {
			t.Fatal(err)
		}
	}
	put("gone", StatusInProgress, dead)
	put("orphan", StatusInProgress, orphan.Process.Pid)
	put("done", StatusCompleted, 0)
	s.Close()

	s, err = OpenStore(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, id := range []string{"gone", "orphan"} {
		task, err := s.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if task.Status != StatusFailed || task.Error == nil || task.Error.Type != ErrTypeServerStopped || !strings.Contains(task.Error.Details.Message, "server stopped") {
			t.Fatalf("%s: %+v", id, task)
		}
	}
	if task, _ := s.Get(ctx, "done"); task.Status != StatusCompleted {
		t.Fatalf("done: %+v", task)
	}
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
		t.Fatal("orphaned agent not killed")
	}
}

func TestBadInputsLeaveNothing(t *testing.T) {
	ctx := context.Background()
	t.Run("not a repo", func(t *testing.T) {
		dir := t.TempDir()
		f := newFixture(t, dir)
		_, err := f.o.Create(ctx, CreateInput{Agent: "FAKE", Description: "x", Config: cfg("true")})
		if !fault.Is(err, fault.Invalid) || !strings.Contains(err.Error(), "not a git repository") {
			t.Fatalf("err %v", err)
		}
		if l, _ := f.o.List(ctx); len(l) != 0 {
			t.Fatalf("tasks %v", l)
		}
		f.o.Close()
		if ents, _ := os.ReadDir(dir); len(ents) != 0 {
			t.Fatalf("left in %s: %v", dir, ents)
		}
	})
	for _, pooled := range []bool{false, true} {
		t.Run("pool="+strconv.FormatBool(pooled), func(t *testing.T) {
			repo := testkit.Repo(t)
			testkit.Git(t, repo, "branch", "taken")
			other := filepath.Join(t.TempDir(), "other")
			testkit.Git(t, repo, "worktree", "add", "-q", "-b", "elsewhere", other)
			before := testkit.Git(t, repo, "for-each-ref", "--format=%(refname)", "refs/heads")
			wtBefore := testkit.Git(t, repo, "worktree", "list", "--porcelain")
			f := newFixture(t, repo, func(o *Options) { o.NoPool = !pooled })
			if pooled {
				waitPool(t, f.o)
			}
			cases := []struct {
				name string
				in   CreateInput
				code fault.Code
				msg  string
			}{
				{"existing branch", CreateInput{Agent: "FAKE", Description: "x", Branch: "taken"}, fault.Conflict, "already exists"},
				{"checked out here", CreateInput{Agent: "FAKE", Description: "x", Branch: "main"}, fault.Conflict, "already checked out"},
				{"checked out elsewhere", CreateInput{Agent: "FAKE", Description: "x", Branch: "elsewhere"}, fault.Conflict, "already checked out at " + other},
				{"bad branch name", CreateInput{Agent: "FAKE", Description: "x", Branch: "a..b"}, fault.Invalid, "invalid branch"},
				{"unknown tool", CreateInput{Agent: "NOPE", Description: "x"}, fault.Invalid, "unknown tool"},
				{"no tool", CreateInput{Description: "x"}, fault.Invalid, "tool is required"},
				{"no description", CreateInput{Agent: "FAKE"}, fault.Invalid, "description is required"},
				{"bad config", CreateInput{Agent: "FAKE", Description: "x", Config: json.RawMessage(`[1]`)}, fault.Invalid, "config"},
				{"command missing", CreateInput{Agent: "COMMAND", Description: "x", Config: json.RawMessage(`{"command":["/no/such/bin"]}`)}, fault.Unavailable, "not usable"},
			}
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					_, err := f.o.Create(ctx, c.in)
					var fe *fault.Error
					if !errors.As(err, &fe) || fe.Code != c.code || !strings.Contains(err.Error(), c.msg) {
						t.Fatalf("err %v", err)
					}
				})
			}
			if l, _ := f.o.List(ctx); len(l) != 0 {
				t.Fatalf("tasks %v", l)
			}
			var warm struct{ id, path, dir string }
			if pooled { // a bad branch leaves the warm worktree as it was
				w := waitPool(t, f.o)
				warm.id, warm.path, warm.dir = w.id, w.path, w.dir
			}
			f.o.Close() // the warm worktree stays for the next run
			if got := testkit.Git(t, repo, "for-each-ref", "--format=%(refname)", "refs/heads"); got != before {
				t.Fatalf("branches changed:\n%s\nwas\n%s", got, before)
			}
			wl := testkit.Git(t, repo, "worktree", "list", "--porcelain")
			if pooled {
				wl = strings.Replace(wl, "\n\nworktree "+warm.path+"\nHEAD "+testkit.Git(t, repo, "rev-parse", "HEAD")+"\ndetached", "", 1)
			}
			if wl != wtBefore {
				t.Fatalf("worktrees changed:\n%s", wl)
			}
			for _, e := range readDir(t, wtDirOf(t, f)) {
				if name := e.Name(); name != locksDir && (!pooled || name != warmPrefix+warm.id) {
					t.Fatalf("worktree dir left: %s", name)
				}
			}
		})
	}
}

func TestUpdateResumesSession(t *testing.T) {
	f := newFixture(t, testkit.Repo(t))
	ctx := context.Background()
	script := `if [ -z "$FAKE_RESUME" ]; then echo SESSION s42; echo DONE ok which one?; else echo "resumed:$FAKE_RESUME:$(cat)"; echo DONE ok; fi`
	task, err := f.o.Create(ctx, CreateInput{Agent: "FAKE", Description: "ask", Config: cfg(script)})
	if err != nil {
		t.Fatal(err)
	}
	task = f.wait(t, task.ID)
	if task.Status != StatusWaiting || task.SessionID != "s42" {
		t.Fatalf("task %+v", task)
	}
	if _, err := f.o.Update(ctx, task.ID, UpdateInput{Instructions: "x", Status: StatusCompleted}); !fault.Is(err, fault.Invalid) {
		t.Fatalf("both: %v", err)
	}
	task, err = f.o.Update(ctx, task.ID, UpdateInput{Instructions: "the blue one", Log: "user answered"})
	if err != nil {
		t.Fatal(err)
	}
	if spec := f.ad.lastSpec(); spec.ResumeSession != "s42" || spec.Dir != task.WorktreePath || spec.Instructions != "the blue one" {
		t.Fatalf("spec %+v", spec)
	}
	task = f.wait(t, task.ID)
	if task.Status != StatusWaiting || task.SessionID != "s42" {
		t.Fatalf("task %+v", task)
	}
	evs, _ := f.o.Logs(ctx, task.ID, 0, 0)
	var texts []string
	for i, e := range evs {
		if e.Seq != int64(i+1) {
			t.Fatalf("seq %d at %d", e.Seq, i)
		}
		texts = append(texts, e.Event.Text)
	}
	all := strings.Join(texts, "|")
	if !strings.Contains(all, "user answered") || !strings.Contains(all, "resumed:s42:the blue one") {
		t.Fatalf("logs %s", all)
	}
	// Manual updates: result and status.
	task, err = f.o.Update(ctx, task.ID, UpdateInput{Status: StatusFailed, Result: json.RawMessage(`{"note":1}`)})
	if err != nil || task.Status != StatusFailed || string(task.Result) != `{"note":1}` {
		t.Fatalf("manual update %+v %v", task, err)
	}
	if _, err := f.o.Update(ctx, task.ID, UpdateInput{Status: StatusInProgress}); !fault.Is(err, fault.Conflict) ||
		!strings.Contains(fault.HintOf(err), "instructions") {
		t.Fatalf("manual in_progress: %v", err)
	}
	if _, err := f.o.Update(ctx, task.ID, UpdateInput{Status: StatusCancelled}); !fault.Is(err, fault.Invalid) {
		t.Fatalf("manual cancelled: %v", err)
	}
	if _, err := f.o.Update(ctx, "nope", UpdateInput{Log: "x"}); !fault.Is(err, fault.NotFound) {
		t.Fatalf("missing task: %v", err)
	}
}
