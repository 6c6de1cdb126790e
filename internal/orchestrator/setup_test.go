package orchestrator

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/orchestrator/agent"
	"github.com/sudocode/sudocode/internal/testkit"
	"github.com/sudocode/sudocode/internal/userenv"
)

func writeSettings(t *testing.T, repo, json string) {
	t.Helper()
	os.MkdirAll(filepath.Join(repo, ".sudocode"), 0o755)
	if err := os.WriteFile(filepath.Join(repo, ".sudocode", "agent.json"), []byte(json), 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeTrusted writes the project's settings and trusts them, as the
// user does with `sudocode trust` before their commands may run.
func writeTrusted(t *testing.T, repo, json string) {
	t.Helper()
	writeSettings(t, repo, json)
	if _, err := TrustFile(context.Background(), repo, "", userenv.Env{}); err != nil {
		t.Fatal(err)
	}
}

// phaseLines are task id's log lines of a phase (setup or cleanup).
func phaseLines(t *testing.T, f *fixture, id, phase string) string {
	t.Helper()
	evs, err := f.o.Logs(context.Background(), id, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range evs {
		if e.Event.Data["phase"] == phase {
			b.WriteString(e.Event.Kind + ": " + e.Event.Text + "\n")
		}
	}
	return b.String()
}

// The project's .sudocode/agent.json copies untracked files into a new
// worktree and runs a setup command there before the agent, and a
// cleanup command before the worktree goes; each step is logged.
func TestProjectSetupAndCleanup(t *testing.T) {
	repo := testkit.Repo(t)
	os.WriteFile(filepath.Join(repo, ".env"), []byte("SECRET=1\n"), 0o600)
	os.MkdirAll(filepath.Join(repo, "conf", "sub"), 0o755)
	os.WriteFile(filepath.Join(repo, "conf", "sub", "local.yaml"), []byte("a: 1\n"), 0o644)
	writeTrusted(t, repo, `{"copy": [".env", "conf", "missing.txt"],
		"setup": "echo preparing; echo warming up >&2; touch .setup-done",
		"cleanup": ["sh", "-c", "echo cleaning in $PWD"]}`)
	f := newFixture(t, repo, noPool)
	ctx := context.Background()
	task := f.wait(t, f.create(t, CreateInput{Agent: "COMMAND", Description: "uses setup",
		Config: shell(`test -f .setup-done && cat .env conf/sub/local.yaml`)}).ID)
	if task.Status != StatusCompleted {
		t.Fatalf("status %s %+v", task.Status, task.Error)
	}
	if st, _ := os.Stat(filepath.Join(task.WorktreePath, ".env")); st == nil || st.Mode().Perm() != 0o600 {
		t.Errorf(".env not copied with its mode: %v", st)
	}
	setup := phaseLines(t, f, task.ID, PhaseSetup)
	for _, want := range []string{"log: copy: .env\n", "log: copy: conf\n", "log: copy: missing.txt is not in the checkout, skipped\n",
		"log: setup: echo preparing;", "log: preparing\n", "stderr: warming up\n", "log: setup exited with code 0\n"} {
		if !strings.Contains(setup, want) {
			t.Errorf("setup log lacks %q:\n%s", want, setup)
		}
	}
	logs := eventsOf(t, f, task.ID, agent.KindLog)
	if last := logs[len(logs)-1]; last.Text != "a: 1" || last.Data["phase"] != nil {
		t.Errorf("the agent's output %+v", last)
	}
	if _, err := f.o.End(ctx, task.ID, EndInput{}); err != nil {
		t.Fatal(err)
	}
	if c := phaseLines(t, f, task.ID, PhaseCleanup); !strings.Contains(c, "log: cleaning in "+task.WorktreePath+"\n") {
		t.Errorf("cleanup log:\n%s", c)
	}
}

// A failing setup fails the task without running the agent; ending a
// task during its setup stops the setup.
func TestProjectSetupFailsOrIsEnded(t *testing.T) {
	repo := testkit.Repo(t)
	writeTrusted(t, repo, `{"setup": "echo no database >&2; exit 7"}`)
	f := newFixture(t, repo, noPool)
	ctx := context.Background()
	task := f.wait(t, f.create(t, CreateInput{Agent: "COMMAND", Description: "never runs", Config: shell(`touch agent-ran`)}).ID)
	d := task.Error.Details
	if task.Status != StatusFailed || task.Error.Type != ErrTypeSetup || d.ExitCode == nil || *d.ExitCode != 7 ||
		d.Stderr == nil || !strings.Contains(*d.Stderr, "no database") {
		t.Fatalf("task %s %+v", task.Status, task.Error)
	}
	if _, err := os.Stat(filepath.Join(task.WorktreePath, "agent-ran")); !os.IsNotExist(err) {
		t.Errorf("the agent ran after a failed setup: %v", err)
	}

	mk := procMarker()
	writeTrusted(t, repo, `{"setup": "sleep `+mk+`"}`)
	slow := f.create(t, CreateInput{Agent: "COMMAND", Description: "ended in setup", Config: shell(`touch agent-ran`)})
	if slow.Status != StatusInProgress {
		t.Fatalf("created %+v", slow)
	}
	waitProcs(t, mk, func(n int) bool { return n > 0 }, "the setup running")
	// The setup would sleep 301 s: ending the task kills it instead, so
	// End returns long before.
	type ended struct {
		r   EndResult
		err error
	}
	done := make(chan ended, 1)
	go func() {
		r, err := f.o.End(ctx, slow.ID, EndInput{})
		done <- ended{r, err}
	}()
	end := testkit.Receive(t, 5*time.Second, "End to kill the setup", done)
	if end.err != nil || end.r.Task.Status != StatusCancelled {
		t.Fatalf("end %+v %v", end.r.Task, end.err)
	}
	waitProcs(t, mk, func(n int) bool { return n == 0 }, "the setup ended")
}

// A copy entry reached through a symlinked directory that leads out of
// the checkout is refused, and the task is not created.
func TestProjectCopyStaysInCheckout(t *testing.T) {
	repo := testkit.Repo(t)
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "id_rsa"), []byte("secret"), 0o600)
	os.Symlink(outside, filepath.Join(repo, "out"))
	writeTrusted(t, repo, `{"copy": ["out/id_rsa"]}`)
	f := newFixture(t, repo, noPool)
	_, err := f.o.Create(context.Background(), CreateInput{Agent: "COMMAND", Description: "x", Config: shell(`true`)})
	if err == nil || !strings.Contains(err.Error(), "leads out of the checkout") {
		t.Fatalf("create: %v", err)
	}
	if l, _ := f.o.List(context.Background()); len(l) != 0 {
		t.Fatalf("tasks %v", l)
	}
}

// Endless stderr without a newline is logged in bounded pieces.
func TestReadLinesBounded(t *testing.T) {
	var sizes []int
	readLines(strings.NewReader(strings.Repeat("x", 200<<10)+"\nend"), func(l []byte) { sizes = append(sizes, len(l)) })
	if len(sizes) != 5 || sizes[0] != 64<<10 || sizes[3] != 8<<10 || sizes[4] != 3 {
		t.Fatalf("pieces %v", sizes)
	}
}
