package cli_test

// The fleet end to end: serve coordinating a 3-node NATS JetStream
// cluster and three `sudocode worker` processes (three "machines", each
// with its own home and clone), run_ready working a DAG of 30 issues with
// 16 tasks at once; meanwhile a worker is killed mid-run and a NATS node
// is lost. Every issue is merged once, each after the issues it waits for.

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/fleet"
	"github.com/sudocode/sudocode/internal/fleetrun"
	"github.com/sudocode/sudocode/internal/natsbus"
	"github.com/sudocode/sudocode/internal/natsbus/natstest"
	"github.com/sudocode/sudocode/internal/testkit"
	"github.com/sudocode/sudocode/internal/userenv"
)

// dagWorld is a project with n issues, issue i blocked by issue i-1
// (unless i is a multiple of 5) and by issue i-5: chains and layers.
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

// dagScript is the COMMAND each task runs: it writes done-<issue>.txt
// (the issue named by its prompt), commits it and says finished.
const dagScript = `id=$(sed -n 's/^# Issue \([^:]*\):.*/\1/p' | head -n 1)
echo "$id" > "done-$id.txt"
git add -A && git -c user.name=Agent -c user.email=agent@example.com commit -qm "work $id" && echo "finished $id"`

// workerProc is a running `sudocode worker`.
type workerProc struct {
	cmd    *exec.Cmd
	out    *testkit.LockedBuffer
	exited chan struct{}
}

func startWorkerProc(t *testing.T, urls, creds string, slots int) *workerProc {
	t.Helper()
	p := &workerProc{cmd: exec.Command(sudocodeBin, "worker", "--connect", urls, "--creds", creds, "--slots", fmt.Sprint(slots)),
		out: &testkit.LockedBuffer{}, exited: make(chan struct{})}
	p.cmd.Env = childEnv(t) // a machine of its own: its own home and state
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
	env := childEnv(t, "SUDOCODE_FLEET_LEASE="+testkit.Scale(3*time.Second).String())
	w := newDAGWorld(t, env, n)

	// The coordinator issues the workers' credentials; the cluster admits
	// them and the coordinator.
	creds := map[string]string{}
	for _, name := range []string{"w1", "w2", "w3"} {
		creds[name] = filepath.Join(t.TempDir(), name+".creds")
		mustRun(t, runMain(t, w.repo, env, "", "workers", "add", name, "--out", creds[name]))
	}
	key, err := fleetrun.RepoKey(t.Context(), w.repo)
	if err != nil {
		t.Fatal(err)
	}
	fdir, err := fleetrun.Dir(userenv.Of(env), key)
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

	sp, d := startServeJSON(t, env, "--dir", w.repo, "--nats", urls, "--nats-creds", coordFile, "--local-slots", "0")
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("serve's stderr:\n%s", sp.stderr)
			for name, p := range workers {
				t.Logf("worker %s:\n%s", name, p.out)
			}
		}
	})
	for name, c := range creds {
		workers[name] = startWorkerProc(t, urls, c, 6)
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

	s := connectHTTP(t, d.MCP["agent"], map[string]string{"Authorization": "Bearer " + stateToken(env)})
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(5*time.Minute))
	defer cancel()
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "run_ready", Arguments: map[string]any{
		"tool": "COMMAND", "config": map[string]any{"command": []string{"sh", "-c", dagScript}}, "limit": n, "parallel": 16}})
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		Result struct {
			Items []struct {
				IssueID string `json:"issue_id"`
				TaskID  string `json:"task_id"`
				Outcome string `json:"outcome"`
				Commit  string `json:"commit"`
				Error   string `json:"error"`
			} `json:"items"`
		} `json:"result"`
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &out); err != nil || res.IsError {
		t.Fatalf("run_ready: %s", b)
	}
	lost := <-killed
	if len(lost) == 0 {
		t.Fatalf("w1 never ran anything; its output:\n%s", workers["w1"].out)
	}
	commit := map[string]string{}
	for _, it := range out.Result.Items {
		if it.Outcome != "merged" {
			logs := runMain(t, w.repo, env, "", "task", "show", it.TaskID, "--json")
			t.Errorf("issue %s: %s %s\nits task's log:\n%s", it.IssueID, it.Outcome, it.Error, logs.stdout)
		}
		if commit[it.IssueID] != "" {
			t.Errorf("issue %s merged twice", it.IssueID)
		}
		commit[it.IssueID] = it.Commit
	}
	if len(commit) != n {
		t.Fatalf("%d issues merged, want %d: %s", len(commit), n, b)
	}
	// Each issue's merge holds the work of every issue it waited for:
	// those were merged before its task started.
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
	// The runs w1 held went to the others: their logs say so.
	again := 0
	for _, it := range out.Result.Items {
		r := mustRun(t, runMain(t, w.repo, env, "", "task", "logs", it.TaskID))
		if strings.Contains(r.stdout, "offered again") {
			again++
		}
		if strings.Count(r.stdout, "taken by worker w1") > 0 && !strings.Contains(r.stdout, "offered again") && strings.Contains(strings.Join(lost, " "), it.TaskID) {
			t.Errorf("task %s was w1's when it was killed, but nobody took it again:\n%s", it.TaskID, r.stdout)
		}
	}
	if again == 0 {
		t.Errorf("no run was offered again after w1 was killed (it held %v)", lost)
	}
}
