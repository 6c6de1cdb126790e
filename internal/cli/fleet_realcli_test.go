package cli_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/fleetrun"
	"github.com/sudocode/sudocode/internal/modelsim"
	"github.com/sudocode/sudocode/internal/orchestrator"
	"github.com/sudocode/sudocode/internal/testkit"
	"github.com/sudocode/sudocode/internal/userenv"
)

// Workers of other machines run the four real agent CLIs for serve's
// embedded fleet, against the model simulator: each worker has one CLI,
// installed and logged in on it alone (serve has none, and runs no agent
// itself), and offers only that one. Each task is taken by the worker of
// its CLI; the workers connect over TLS with the credentials serve
// issued; the file each agent writes in its worker's clone comes back on
// the task's branch in the user's repository, and the task waits for
// review, its session known. The tasks run one after another: four CLIs
// at once starve on two busy cores.
func TestFleetWorkersRunTheRealCLIs(t *testing.T) {
	sim := modelsim.Start(t)
	env := childEnv(t)
	repo := serveRepo(t)
	_, d := startServeJSON(t, env, "--dir", repo, "--local-slots", "0")
	api := taskAPI{url: strings.TrimSuffix(d.URL, "/"), token: stateToken(env)}
	for _, c := range realCLIs {
		startCLIWorker(t, repo, env, d.Fleet.NATS, "w-"+c.name, c, sim)
	}
	for _, c := range realCLIs {
		file, content, answer := c.name+".txt", "hi from "+c.name+" afar\n", "I wrote "+c.name+".txt."
		task := api.start(t, `{"tool":"`+c.tool+`","description":"Greet from afar with `+c.name+`","instructions":`+strconv.Quote(writePrompt(file, content, answer))+`}`)
		api.waitLog(t, task, "run 1 taken by worker w-"+c.name)
		var got struct {
			Status    string `json:"status"`
			Branch    string `json:"branch"`
			SessionID string `json:"session_id"`
		}
		testkit.WaitFor(t, 2*time.Minute, c.name+"'s task "+task+" to wait for review", func() bool {
			api.get(t, "/api/tasks/"+task, &got)
			return got.Status == "waiting" || got.Status == "failed" || got.Status == "completed"
		})
		if got.Status != "waiting" || got.SessionID == "" {
			t.Fatalf("%s's task %s is %s, session %q; want waiting with the CLI's session", c.name, task, got.Status, got.SessionID)
		}
		if b := testkit.Git(t, repo, "show", got.Branch+":"+file); b+"\n" != content {
			t.Fatalf("%s on %s's task's branch: %q, want %q", file, c.name, b, content)
		}
	}
}

// cliWorkerEnv is the environment of a worker's machine with CLI c: the
// CLI, its login to sim, a home and state of its own.
func cliWorkerEnv(t *testing.T, c realCLI, sim *modelsim.Server) []string {
	return append(c.setup(t, sim), "XDG_STATE_HOME="+t.TempDir(), "XDG_DATA_HOME="+t.TempDir())
}

// A worker killed while an agent CLI works on a task loses little: the
// worker that takes the run again finds the first worker's saved work in
// its worktree and resumes the agent's session there (its CLI reads the
// session file the checkpoint carried, placed for the new worktree), so
// the model sees the earlier turns and goes on with the script where it
// stopped; the task's branch ends with the work of both. For Claude Code
// and Codex, whose sessions are files; mark is what their session file
// and the model's request hold once a tool's result is in.
func TestFleetResumesALostWorkersSession(t *testing.T) {
	marks := map[string]string{"claude": "tool_result", "codex": "custom_tool_call_output"}
	for _, c := range realCLIs {
		if mark := marks[c.name]; mark != "" {
			t.Run(c.name, func(t *testing.T) { resumeLostSession(t, c, mark) })
		}
	}
}

func resumeLostSession(t *testing.T, c realCLI, mark string) {
	sim := modelsim.Start(t)
	env := childEnv(t, "SUDOCODE_FLEET_LEASE="+testkit.Scale(3*time.Second).String())
	repo := serveRepo(t)
	_, d := startServeJSON(t, env, "--dir", repo, "--local-slots", "0")
	api := taskAPI{url: strings.TrimSuffix(d.URL, "/"), token: stateToken(env)}
	worker := func(name string) *workerProc {
		return startCLIWorker(t, repo, env, d.Fleet.NATS, name, c, sim)
	}
	t.Cleanup(func() {
		if t.Failed() {
			for _, r := range sim.Requests() {
				t.Logf("%s %s calls=%v\n%s", r.Method, r.Path, r.Calls, r.Body)
			}
		}
	})
	w1 := worker("w1")
	// The model writes first.txt, then waits for the gate to write
	// second.txt: on w1 it never opens.
	gate := filepath.Join(t.TempDir(), "gate")
	prompt := "Write first.txt, then second.txt.\n@sim write first.txt \"one\\n\"\n@sim wait " + gate + "\n@sim write second.txt \"two\\n\"\n@sim text \"Both written.\"\n"
	task := api.start(t, `{"tool":"`+c.tool+`","description":"Outlive a worker","instructions":`+strconv.Quote(prompt)+`}`)
	api.waitLog(t, task, "run 1 taken by worker w1")

	// w1's checkpoint holds first.txt and the session with the write's result.
	_, fdir, err := fleetrun.Locate(t.Context(), userenv.Of(env), repo)
	if err != nil {
		t.Fatal(err)
	}
	mirror := filepath.Join(fdir, "repo.git")
	sessionRef := orchestrator.SessionRef(task, 1)
	testkit.WaitFor(t, 2*time.Minute, "w1's checkpoint of first.txt and of the session that wrote it", func() bool {
		if testkit.GitCmd(mirror, "cat-file", "-e", orchestrator.CheckpointRef(task, 1)+":first.txt").Run() != nil {
			return false
		}
		name, err := testkit.GitCmd(mirror, "ls-tree", "--name-only", sessionRef).Output()
		if err != nil || len(name) == 0 {
			return false
		}
		b, err := testkit.GitCmd(mirror, "show", sessionRef+":"+strings.TrimSpace(string(name))).Output()
		return err == nil && strings.Contains(string(b), mark)
	})
	_ = w1.cmd.Process.Signal(syscall.SIGKILL)
	testkit.Receive(t, 30*time.Second, "w1 to exit", w1.exited)
	worker("w2")
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}

	var got struct {
		Status    string `json:"status"`
		Branch    string `json:"branch"`
		SessionID string `json:"session_id"`
	}
	testkit.WaitFor(t, 3*time.Minute, "task "+task+" to wait for review", func() bool {
		api.get(t, "/api/tasks/"+task, &got)
		return got.Status == "waiting" || got.Status == "failed" || got.Status == "completed"
	})
	log := mustRun(t, runMain(t, repo, env, "", "task", "logs", task)).stdout
	if got.Status != "waiting" {
		t.Fatalf("task %s is %s; log:\n%s", task, got.Status, log)
	}
	first := regexp.MustCompile(`session started: (\S+)`).FindStringSubmatch(log)
	if first == nil || !strings.Contains(log, "run 1 resumed on worker w2 from the work the lost worker saved") ||
		!strings.Contains(log, "in the agent's session "+first[1]) {
		t.Fatalf("the log does not say w2 resumed w1's session:\n%s", log)
	}
	for file, want := range map[string]string{"first.txt": "one", "second.txt": "two"} {
		if b, _ := testkit.GitCmd(repo, "show", got.Branch+":"+file).Output(); strings.TrimSpace(string(b)) != want {
			t.Errorf("%s on the task's branch: %q, want %q; log:\n%s", file, b, want, log)
		}
	}
	// The resumed conversation: the call that carried the note of the
	// interruption carried the first turns too.
	resumed := false
	for _, r := range sim.Requests() {
		b := string(r.Body)
		resumed = resumed || strings.Contains(b, "The run you were in was interrupted") && strings.Contains(b, "Write first.txt, then second.txt.") && strings.Contains(b, mark)
	}
	if !resumed {
		t.Fatalf("no call of the model carried the resumed conversation")
	}
}

// startCLIWorker issues worker name its credentials in repo and starts it
// on a machine of its own with CLI c set up against sim, offering c alone;
// its output is logged if the test fails.
func startCLIWorker(t *testing.T, repo string, env []string, nats, name string, c realCLI, sim *modelsim.Server) *workerProc {
	t.Helper()
	creds := filepath.Join(t.TempDir(), name+".creds")
	mustRun(t, runMain(t, repo, env, "", "workers", "add", name, "--out", creds))
	wp := startWorkerWith(t, cliWorkerEnv(t, c, sim), nats, creds, "--agents", strings.ToLower(c.tool))
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("worker %s:\n%s", name, wp.out)
		}
	})
	return wp
}
