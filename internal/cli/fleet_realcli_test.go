package cli_test

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/modelsim"
	"github.com/sudocode/sudocode/internal/testkit"
)

// A worker of another machine runs a real agent CLI for serve's embedded
// fleet: Claude Code, against the model simulator, installed and logged
// in on the worker alone (serve has neither, and runs no agent itself).
// The worker connects over TLS with the credentials serve issued; the
// file the agent writes in the worker's clone comes back on the task's
// branch in the user's repository, and the task waits for review, its
// session known.
func TestFleetWorkerRunsARealCLI(t *testing.T) {
	c := realCLIs[0]
	if c.name != "claude" {
		t.Fatalf("realCLIs[0] is %s, want claude", c.name)
	}
	sim := modelsim.Start(t)
	env := childEnv(t)
	repo := serveRepo(t)
	_, d := startServeJSON(t, env, "--dir", repo, "--local-slots", "0")
	creds := filepath.Join(t.TempDir(), "w1.creds")
	mustRun(t, runMain(t, repo, env, "", "workers", "add", "w1", "--out", creds))

	// The worker's machine: the CLI, its login, a home and state of its own.
	wenv := append(c.setup(t, sim), "XDG_STATE_HOME="+t.TempDir(), "XDG_DATA_HOME="+t.TempDir())
	wp := startWorkerWith(t, wenv, d.Fleet.NATS, creds)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the worker:\n%s", wp.out)
		}
	})

	api := taskAPI{url: strings.TrimSuffix(d.URL, "/"), token: stateToken(env)}
	const content, answer = "hi from a worker\n", "I wrote hello.txt."
	task := api.start(t, `{"tool":"`+c.tool+`","description":"Greet from afar","instructions":`+strconv.Quote(writePrompt("hello.txt", content, answer))+`}`)
	api.waitLog(t, task, "run 1 taken by worker w1")
	var got struct {
		Status    string `json:"status"`
		Branch    string `json:"branch"`
		SessionID string `json:"session_id"`
	}
	testkit.WaitFor(t, 2*time.Minute, "task "+task+" to wait for review", func() bool {
		api.get(t, "/api/tasks/"+task, &got)
		return got.Status == "waiting" || got.Status == "failed" || got.Status == "completed"
	})
	if got.Status != "waiting" || got.SessionID == "" {
		t.Fatalf("task %s is %s, session %q; want waiting with the CLI's session", task, got.Status, got.SessionID)
	}
	if b := testkit.Git(t, repo, "show", got.Branch+":hello.txt"); b+"\n" != content {
		t.Fatalf("hello.txt on the task's branch: %q, want %q", b, content)
	}
}
