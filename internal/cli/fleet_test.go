package cli_test

// The fleet end to end: serve coordinating a 3-node NATS JetStream
// cluster and three `sudocode worker` processes (three "machines", each
// with its own home, clone and Codex CLI talking to the model
// simulator), run_ready working a DAG of 30 issues with 16 tasks at once;
// meanwhile a worker is killed mid-run, a NATS node is lost and serve is
// killed and started again (run_ready called again). Every issue is
// started and merged once, each after the issues it waits for.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/fleet"
	"github.com/sudocode/sudocode/internal/fleetrun"
	"github.com/sudocode/sudocode/internal/modelsim"
	"github.com/sudocode/sudocode/internal/natsbus"
	"github.com/sudocode/sudocode/internal/natsbus/natstest"
	"github.com/sudocode/sudocode/internal/testkit"
	"github.com/sudocode/sudocode/internal/userenv"
)

// mergedAs finds the merge's commit and task in a closed issue's reason.
var mergedAs = regexp.MustCompile(`Merged into \S+ as ([0-9a-f]+) \(task ([0-9a-z]+),`)

// dagWorld is a project with n issues, issue i blocked by issue i-1
// (unless i is a multiple of 5) and by issue i-5: chains and layers. Each
// issue's description is dagWork's script, which the task's prompt
// carries to the agent.
type dagWorld struct {
	repo   string
	ids    []string
	blocks map[int][]int // i → the issues i waits for
}

func newDAGWorld(t *testing.T, env []string, n int) dagWorld {
	t.Helper()
	w := dagWorld{repo: serveRepo(t), blocks: map[int][]int{}}
	mustRun(t, runMain(t, w.repo, env, "", "init", "--prefix", "dag"))
	for i := range n {
		r := mustRun(t, runMain(t, w.repo, env, "", "issue", "create", fmt.Sprintf("Step %d", i), "--json"))
		var is struct{ ID string }
		if err := json.Unmarshal([]byte(r.stdout), &is); err != nil {
			t.Fatal(err)
		}
		w.ids = append(w.ids, is.ID)
		// The script names the id, so it goes in once the id exists.
		mustRun(t, runMain(t, w.repo, env, "", "issue", "update", is.ID, "--description", dagWork(is.ID)))
		if i%5 != 0 {
			w.blocks[i] = append(w.blocks[i], i-1)
		}
		if i >= 5 {
			w.blocks[i] = append(w.blocks[i], i-5)
		}
		for _, j := range w.blocks[i] {
			mustRun(t, runMain(t, w.repo, env, "", "link", is.ID, w.ids[j], "--type", "blocks"))
		}
	}
	testkit.Git(t, w.repo, "add", "-A")
	testkit.Git(t, w.repo, "commit", "-qm", "issues")
	return w
}

func mustRun(t *testing.T, r result) result {
	t.Helper()
	if r.code != 0 {
		t.Fatalf("exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	return r
}

// dagWork is issue id's description: the simulator's script that has
// the agent write done-<id>.txt holding the id and say it finished. The
// agent leaves the file uncommitted: the worker commits it.
func dagWork(id string) string {
	return writePrompt("done-"+id+".txt", id+"\n", "finished "+id)
}

// dagCLI is the agent of the DAG's 30 tasks: Codex, of the four CLIs the
// one that costs least CPU per run (a native binary; the others start
// Node: about 0.6 s of CPU a run against 1 s for Claude Code, 3 s for
// Gemini CLI and 8 s for OpenCode), sixteen of whose runs share the
// machine at once.
var dagCLI = realCLINamed("codex")

// workerProc is a running `sudocode worker`.
type workerProc struct {
	cmd    *exec.Cmd
	out    *testkit.LockedBuffer
	exited chan struct{}
}

// startWorkerWith starts `sudocode worker` with env, connecting to urls
// with creds, stopped when the test ends.
func startWorkerWith(t *testing.T, env []string, urls, creds string, args ...string) *workerProc {
	t.Helper()
	p := &workerProc{cmd: exec.Command(sudocodeBin, append([]string{"worker", "--connect", urls, "--creds", creds}, args...)...),
		out: &testkit.LockedBuffer{}, exited: make(chan struct{})}
	p.cmd.Env = env
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.cmd.Wait(); close(p.exited) }()
	t.Cleanup(func() { testkit.Stop(t, p.cmd.Process, p.exited, 30*time.Second) })
	return p
}

func TestFleetRunsADAGAcrossWorkers(t *testing.T) {
	const n = 30
	sim := modelsim.Start(t)
	env := childEnv(t, "SUDOCODE_FLEET_LEASE="+testkit.Scale(3*time.Second).String())
	w := newDAGWorld(t, env, n)

	// The coordinator issues the workers' credentials; the cluster admits
	// them and the coordinator.
	creds := map[string]string{}
	for _, name := range []string{"w1", "w2", "w3"} {
		creds[name] = filepath.Join(t.TempDir(), name+".creds")
		r := mustRun(t, runMain(t, w.repo, env, "", "workers", "add", name, "--out", creds[name]))
		// No serve has run here: nothing to pin, as the cluster below,
		// an operator's, speaks plain NATS; and the worker is told.
		if c, err := natsbus.ReadCreds(creds[name]); err != nil || c.CA != "" {
			t.Fatalf("credentials issued before any serve: %v, pin an authority: %v", err, c.CA != "")
		}
		if !strings.Contains(r.stdout, "pin no TLS authority") {
			t.Fatalf("workers add before any serve says nothing of TLS:\n%s", r.stdout)
		}
	}
	_, fdir, err := fleetrun.Locate(t.Context(), userenv.Of(env), w.repo)
	if err != nil {
		t.Fatal(err)
	}
	grants, err := fleetrun.OpenRegistry(fdir).List()
	if err != nil || len(grants) != 3 {
		t.Fatalf("grants %v, %v", grants, err)
	}
	coord, err := natsbus.NewCreds(fleetrun.CoordinatorUser)
	if err != nil {
		t.Fatal(err)
	}
	coordFile := filepath.Join(t.TempDir(), "coordinator.creds")
	if err := natsbus.WriteCreds(coordFile, coord); err != nil {
		t.Fatal(err)
	}
	users := []natsbus.User{coord.User(nil)}
	for _, g := range grants {
		users = append(users, fleetrun.WorkerUser(g))
	}
	nodes := natstest.StartCluster(t, 3, users)
	urls := natstest.ClientURLs(nodes)
	workers := map[string]*workerProc{}

	serveArgs := []string{"--dir", w.repo, "--nats", urls, "--nats-creds", coordFile, "--local-slots", "0"}
	sp, d := startServeJSON(t, env, serveArgs...)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the simulator answered %d model requests", len(sim.ModelRequests()))
			t.Logf("serve's stderr:\n%s", sp.stderr)
			for name, p := range workers {
				t.Logf("worker %s:\n%s", name, p.out)
			}
		}
	})
	for name, c := range creds {
		workers[name] = startWorkerWith(t, cliWorkerEnv(t, dagCLI, sim), urls, c, "--slots", "6", "--agents", strings.ToLower(dagCLI.tool))
	}

	// The faults, while the DAG runs: w1 is killed as soon as it runs
	// something, then a NATS node is shut down.
	watch, err := natsbus.Connect(t.Context(), urls, coord)
	if err != nil {
		t.Fatal(err)
	}
	defer watch.Close()
	fl, err := fleet.OpenWorker(t.Context(), watch, fleet.Options{})
	if err != nil {
		t.Fatal(err)
	}
	killed := make(chan []string, 1)
	go func() {
		defer close(killed)
		for {
			ws, err := fl.Workers(context.Background())
			if err == nil {
				for _, p := range ws {
					if p.ID == "w1" && p.Running > 0 {
						_ = workers["w1"].cmd.Process.Signal(syscall.SIGKILL)
						nodes[2].Shutdown()
						killed <- p.Tasks
						return
					}
				}
			}
			select {
			case <-workers["w1"].exited:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()

	// run_ready through serve, which is SIGKILLed once w1 was: a new serve
	// reads the runs on, and run_ready called again takes up the first
	// call's tasks and works the rest.
	runReady := func(d serveDoc) (*mcp.CallToolResult, error) {
		s := connectHTTP(t, d.MCP["agent"], map[string]string{"Authorization": "Bearer " + stateToken(env)})
		ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(5*time.Minute))
		defer cancel()
		return s.CallTool(ctx, &mcp.CallToolParams{Name: "run_ready", Arguments: map[string]any{
			"tool": dagCLI.tool, "limit": n, "parallel": 16}})
	}
	firstCall := make(chan error, 1)
	go func() {
		_, err := runReady(d)
		firstCall <- err
	}()
	lost := testkit.Receive(t, 5*time.Minute, "w1 to run something and be killed", killed)
	if len(lost) == 0 {
		t.Fatalf("w1 never ran anything; its output:\n%s", workers["w1"].out)
	}
	_ = sp.cmd.Process.Signal(syscall.SIGKILL)
	testkit.Receive(t, 30*time.Second, "serve to exit", sp.exited)
	if err := testkit.Receive(t, 30*time.Second, "the first run_ready call to end with serve", firstCall); err == nil {
		t.Log("the first run_ready call ended before serve was killed")
	}
	sp, d = startServeJSON(t, env, serveArgs...)
	res, err := runReady(d)
	if err != nil {
		t.Fatal(err)
	}
	second, b := runReadyItems(t, res)
	if !strings.Contains(string(b), `"outcome":"merged"`) {
		t.Fatalf("the second run_ready call merged nothing: %s", b)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the second run_ready call: %+v\nready now:\n%s", second, runMain(t, w.repo, env, "", "ready").stdout)
		}
	})

	checkDAGWorked(t, w, env, n, lost)
}

// checkDAGWorked checks that every issue of w has one task, merged once
// after the issues it waits for (a task serve was killed under before
// any worker took it may have failed, its issue started again), whose
// agent, dagCLI, ran the issue's script, and that the runs the killed
// worker held, lost, went to the others.
func checkDAGWorked(t *testing.T, w dagWorld, env []string, n int, lost []string) {
	t.Helper()
	var list struct {
		Tasks []struct {
			ID      string `json:"id"`
			IssueID string `json:"issue_id"`
			State   string `json:"state"`
		} `json:"tasks"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, runMain(t, w.repo, env, "", "task", "list", "--json")).stdout), &list); err != nil {
		t.Fatal(err)
	}
	commit, taskOf := map[string]string{}, map[string]string{}
	for _, tk := range list.Tasks {
		if tk.State == "failed" {
			// Only a task serve was killed under before any worker took
			// it may fail; its issue is started again.
			r := mustRun(t, runMain(t, w.repo, env, "", "task", "show", tk.ID))
			l := mustRun(t, runMain(t, w.repo, env, "", "task", "logs", tk.ID))
			if !strings.Contains(r.stdout, "The server stopped") || strings.Contains(l.stdout, "taken by worker") {
				t.Errorf("issue %s: task %s failed:\n%s%s", tk.IssueID, tk.ID, r.stdout, l.stdout)
			}
			continue
		}
		if taskOf[tk.IssueID] != "" {
			t.Errorf("issue %s was started twice: tasks %s and %s", tk.IssueID, taskOf[tk.IssueID], tk.ID)
		}
		taskOf[tk.IssueID] = tk.ID
		// The issue, closed, names the merge's commit.
		r := mustRun(t, runMain(t, w.repo, env, "", "issue", "show", tk.IssueID, "--json"))
		m := mergedAs.FindStringSubmatch(r.stdout)
		if tk.State != "merged" || m == nil || m[2] != tk.ID {
			logs := runMain(t, w.repo, env, "", "task", "show", tk.ID)
			t.Errorf("issue %s: task %s %s, the issue says %v\n%s\nthe task:\n%s", tk.IssueID, tk.ID, tk.State, m, r.stdout, logs.stdout)
			continue
		}
		commit[tk.IssueID] = m[1]
	}
	if len(commit) != n {
		t.Fatalf("%d issues have tasks, want %d", len(commit), n)
	}
	for i, id := range w.ids {
		if got := testkit.Git(t, w.repo, "show", commit[id]+":done-"+id+".txt"); got != id {
			t.Errorf("done-%s.txt at its merge: %q", id, got)
		}
		for _, j := range w.blocks[i] {
			if err := testkit.GitCmd(w.repo, "cat-file", "-e", commit[id]+":done-"+w.ids[j]+".txt").Run(); err != nil {
				t.Errorf("issue %s was merged without the work of %s, which it waits for", id, w.ids[j])
			}
		}
	}
	// The runs w1 held went to the others: their logs say so, and their
	// issues' history says the task resumed from w1's saved work, or
	// restarted where w1 had saved none.
	again := 0
	for issue, task := range taskOf {
		r := mustRun(t, runMain(t, w.repo, env, "", "task", "logs", task))
		// The real CLI did the work: it called its write tool and gave
		// the issue's scripted answer.
		if !strings.Contains(r.stdout, "tool_call "+dagCLI.writeTool+": ") || !strings.Contains(r.stdout, "completion: finished "+issue+"\n") {
			t.Errorf("issue %s: the log of task %s lacks the write by %s or its scripted answer:\n%s", issue, task, dagCLI.name, r.stdout)
		}
		if !strings.Contains(r.stdout, "offered again") {
			if strings.Contains(r.stdout, "taken by worker w1") && strings.Contains(strings.Join(lost, " "), task) {
				t.Errorf("task %s was w1's when it was killed, but nobody took it again:\n%s", task, r.stdout)
			}
			continue
		}
		again++
		is := mustRun(t, runMain(t, w.repo, env, "", "issue", "show", issue, "--json"))
		var shown struct {
			History []struct {
				To     *string `json:"to"`
				TaskID *string `json:"task_id"`
			} `json:"history"`
		}
		if err := json.Unmarshal([]byte(is.stdout), &shown); err != nil {
			t.Fatal(err)
		}
		restarted := false
		for _, h := range shown.History {
			restarted = restarted || h.To != nil && (*h.To == "restarted" || *h.To == "resumed") && h.TaskID != nil && *h.TaskID == task
		}
		if !restarted {
			t.Errorf("issue %s's history does not say its task %s resumed or restarted:\n%s", issue, task, is.stdout)
		}
	}
	if again == 0 {
		t.Errorf("no run was offered again after w1 was killed (it held %v)", lost)
	}
}

// holdScript prints started, waits for a file named release in its
// worktree, then commits and prints finished.
const holdScript = `echo started; while [ ! -f release ]; do sleep 0.02; done; rm release; echo x > work.txt; git add work.txt && git -c user.name=A -c user.email=a@example.com commit -qm work && echo finished`

// A task survives its coordinator being killed: the worker runs on, the
// restarted serve (its embedded NATS on the same port, its store kept)
// reads the run on and finishes it.
func TestFleetTaskSurvivesServeKilled(t *testing.T) {
	env := childEnv(t)
	repo := serveRepo(t)
	mustRun(t, runMain(t, repo, env, "", "init"))
	creds := filepath.Join(t.TempDir(), "w1.creds")
	args := []string{"--dir", repo, "--fleet", "--local-slots", "0"}
	sp, d := startServeJSON(t, env, args...)
	mustRun(t, runMain(t, repo, env, "", "workers", "add", "w1", "--out", creds))
	// The credentials pin the TLS authority of serve's embedded server,
	// which the worker then trusts alone.
	_, fdir, err := fleetrun.Locate(t.Context(), userenv.Of(env), repo)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := os.ReadFile(filepath.Join(fdir, natsbus.CAFile))
	if c, err := natsbus.ReadCreds(creds); err != nil || c.CA == "" || c.CA != string(ca) {
		t.Fatalf("the worker's credentials: %v; pin %q, the fleet's authority is %q", err, c.CA, ca)
	}
	wenv := childEnv(t)
	startWorkerWith(t, wenv, d.Fleet.NATS, creds)

	// The coordinator's own client reaches it over TLS too.
	testkit.WaitFor(t, 30*time.Second, "w1 in sudocode workers", func() bool {
		return strings.Contains(mustRun(t, runMain(t, repo, env, "", "workers")).stdout, "w1")
	})

	api := taskAPI{url: strings.TrimSuffix(d.URL, "/"), token: stateToken(env)}
	task := api.start(t, `{"tool":"COMMAND","description":"Outlive serve","config":{"command":["sh","-c",`+strconv.Quote(holdScript)+`]}}`)
	api.waitLog(t, task, "started")
	_ = sp.cmd.Process.Signal(syscall.SIGKILL)
	testkit.Receive(t, 30*time.Second, "serve to exit", sp.exited)

	_, d2 := startServeJSON(t, env, args...)
	if d2.Fleet.NATS != d.Fleet.NATS {
		t.Fatalf("the restarted fleet listens at %s, the worker knows %s", d2.Fleet.NATS, d.Fleet.NATS)
	}
	api.url = strings.TrimSuffix(d2.URL, "/")
	var wt []string
	testkit.WaitFor(t, 30*time.Second, "the worker's worktree of the task", func() bool {
		wt, _ = filepath.Glob(filepath.Join(stateDir(wenv), "sudocode", "worker", "w1", "worktrees", "*", task))
		return len(wt) == 1
	})
	if err := os.WriteFile(filepath.Join(wt[0], "release"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	api.waitLog(t, task, "finished")
	var got struct {
		Status string `json:"status"`
		Branch string `json:"branch"`
	}
	testkit.WaitFor(t, 30*time.Second, "task "+task+" completed", func() bool {
		api.get(t, "/api/tasks/"+task, &got)
		return got.Status == "completed"
	})
	if log := testkit.Git(t, repo, "log", "--format=%s", "-1", got.Branch); log != "work" {
		t.Fatalf("the task's branch ends with %q", log)
	}
}

// taskAPI is serve's task API, for the fleet's tests.
type taskAPI struct{ url, token string }

func (a taskAPI) do(t *testing.T, method, path, body string, v any) {
	t.Helper()
	req, err := http.NewRequest(method, a.url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+a.token)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 300 {
		t.Fatalf("%s %s: %s: %s", method, path, resp.Status, b)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s %s: %v: %s", method, path, err, b)
	}
}

func (a taskAPI) get(t *testing.T, path string, v any) { t.Helper(); a.do(t, "GET", path, "", v) }

// start starts a task from body and returns its id.
func (a taskAPI) start(t *testing.T, body string) string {
	t.Helper()
	var task struct{ ID string }
	a.do(t, "POST", "/api/tasks", body, &task)
	return task.ID
}

// waitLog waits until task id's log has an event whose text is text.
func (a taskAPI) waitLog(t *testing.T, id, text string) {
	t.Helper()
	testkit.WaitFor(t, 60*time.Second, "the line "+text+" in the log of task "+id, func() bool {
		var logs struct {
			Events []struct {
				Event struct{ Text string } `json:"event"`
			} `json:"events"`
		}
		a.get(t, "/api/tasks/"+id+"/logs", &logs)
		for _, e := range logs.Events {
			if e.Event.Text == text {
				return true
			}
		}
		return false
	})
}

// stateDir is env's XDG_STATE_HOME.
func stateDir(env []string) string {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "XDG_STATE_HOME="); ok {
			return v
		}
	}
	return ""
}
