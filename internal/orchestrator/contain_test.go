package orchestrator

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/orchestrator/agent"
	"github.com/sudocode/sudocode/internal/proctest"
	"github.com/sudocode/sudocode/internal/testkit"
)

// escapes is an agent that starts processes that leave its process
// group and session every way a shell can, marked with mk.
func escapes(mk string) string {
	return fmt.Sprintf(`setsid sleep %[1]s &
( (sleep %[1]s &) & )
nohup sleep %[1]s >/dev/null 2>&1 &
echo started
sleep %[1]s`, mk)
}

func procMarker() string { return fmt.Sprintf("301.%d", rand.IntN(1e9)) }

func waitProcs(t *testing.T, mk string, cond func(int) bool, what string) {
	t.Helper()
	if !testkit.Eventually(10*time.Second, func() bool { return cond(proctest.WithArg(mk)) }) {
		t.Fatalf("%s: %d processes with %s", what, proctest.WithArg(mk), mk)
	}
}

// Ending a task ends everything its agent started, whatever left the
// agent's process group.
func TestEndKillsEscapedProcesses(t *testing.T) {
	repo := testkit.Repo(t)
	f := newFixture(t, repo, noPool)
	mk := procMarker()
	task, err := f.o.Create(context.Background(), CreateInput{Agent: "FAKE", Description: "escapes", Config: cfg(escapes(mk))})
	if err != nil {
		t.Fatal(err)
	}
	waitProcs(t, mk, func(n int) bool { return n >= 4 }, "agent start")
	if _, err := f.o.End(context.Background(), task.ID, EndInput{}); err != nil {
		t.Fatal(err)
	}
	waitProcs(t, mk, func(n int) bool { return n == 0 }, "after end_task")
}

// A server killed with SIGKILL leaves nothing of its agents running, and
// a restarted one finds the task and marks it failed.
func TestKilledServerLeavesNoAgentProcesses(t *testing.T) {
	repo := testkit.Repo(t)
	mk := procMarker()
	db := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperOrchestratorServer$")
	cmd.Env = append(os.Environ(), "ORCH_TEST_REPO="+repo, "ORCH_TEST_DB="+db, "ORCH_TEST_MARKER="+mk)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 256)
	n, _ := out.Read(buf)
	if !strings.Contains(string(buf[:n]), "ready") {
		cmd.Process.Kill()
		t.Fatalf("server said %q", buf[:n])
	}
	waitProcs(t, mk, func(n int) bool { return n >= 4 }, "agent start")
	cmd.Process.Kill()
	cmd.Wait()
	waitProcs(t, mk, func(n int) bool { return n == 0 }, "after the server was killed")

	s, err := OpenStore(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tasks, err := s.List(context.Background())
	if err != nil || len(tasks) != 1 || tasks[0].Status != StatusFailed || tasks[0].Error == nil || tasks[0].Error.Type != ErrTypeServerStopped {
		t.Fatalf("%+v %v", tasks, err)
	}
}

// TestHelperOrchestratorServer is the server TestKilledServerLeavesNoAgentProcesses kills.
func TestHelperOrchestratorServer(t *testing.T) {
	repo := os.Getenv("ORCH_TEST_REPO")
	if repo == "" {
		return
	}
	ctx := context.Background()
	st, err := OpenStore(ctx, os.Getenv("ORCH_TEST_DB"))
	if err != nil {
		t.Fatal(err)
	}
	o := New(st, func(string) (agent.Adapter, bool) { return &fakeAdapter{}, true }, Options{Repo: repo, NoPool: true})
	if _, err := o.Create(ctx, CreateInput{Agent: "FAKE", Description: "escapes", Config: cfg(escapes(os.Getenv("ORCH_TEST_MARKER")))}); err != nil {
		t.Fatal(err)
	}
	fmt.Println("ready")
	select {} // alive, holding its processes, until the test kills it
}
