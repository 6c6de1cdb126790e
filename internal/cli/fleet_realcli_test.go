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
		name := "w-" + c.name
		creds := filepath.Join(t.TempDir(), name+".creds")
		mustRun(t, runMain(t, repo, env, "", "workers", "add", name, "--out", creds))
		wp := startWorkerWith(t, cliWorkerEnv(t, c, sim), d.Fleet.NATS, creds, "--agents", strings.ToLower(c.tool))
		t.Cleanup(func() {
			if t.Failed() {
				t.Logf("worker %s:\n%s", name, wp.out)
			}
		})
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
