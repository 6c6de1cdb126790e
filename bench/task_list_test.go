package bench_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"testing"

	"github.com/sudocode/sudocode/internal/orchestrator"
	"github.com/sudocode/sudocode/internal/testkit"
)

// sudocodeIn runs the sudocode binary bin in dir with env and returns its
// standard output; a failure ends the benchmark.
func sudocodeIn(b *testing.B, bin, dir string, env []string, args ...string) []byte {
	b.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		b.Fatalf("sudocode %v: %v\n%s%s", args, err, out, stderr)
	}
	return out
}

// trackerRepo adds a tracker (sudocode init) to the git repository dir,
// made by testkit.Repo, commits it, and returns the environment the
// binary runs with in it: its task worktrees go under worktrees.
func trackerRepo(b *testing.B, bin, dir, worktrees string) []string {
	b.Helper()
	env := append(os.Environ(), "SUDOCODE_ACTOR=bench", orchestrator.EnvWorktrees+"="+worktrees)
	sudocodeIn(b, bin, dir, env, "init", "--prefix", "bench")
	testkit.Git(b, dir, "add", "-A")
	testkit.Git(b, dir, "commit", "-qm", "tracker")
	return env
}

// BenchmarkTaskList measures reading tasks, whole processes, on a project
// with 100 finished tasks (each with its worktree, as a COMMAND agent that
// committed a file leaves it): task list and task show, against the peer
// sudocode ready on the same repository, a read of the tracker.
func BenchmarkTaskList(b *testing.B) {
	bin := testkit.Binary(b, "./cmd/sudocode")
	dir, worktrees := testkit.Repo(b), b.TempDir()
	env := trackerRepo(b, bin, dir, worktrees)
	ctx := context.Background()
	data, err := orchestrator.DataDir(ctx, dir)
	if err != nil {
		b.Fatal(err)
	}
	o, closeFn, err := orchestrator.Open(ctx, data, orchestrator.Options{Repo: dir, Actor: "bench", Worktrees: worktrees})
	if err != nil {
		b.Fatal(err)
	}
	var last string
	for range 100 {
		t, err := o.Create(ctx, orchestrator.CreateInput{Agent: "COMMAND", Description: "bench task",
			Config: json.RawMessage(`{"command":["sh","-c","echo x > x.txt && git add x.txt && git commit -qm x"]}`)})
		if err != nil {
			b.Fatal(err)
		}
		if err := o.Wait(ctx, t.ID); err != nil {
			b.Fatal(err)
		}
		last = t.ID
	}
	closeFn()
	for _, c := range []struct {
		name string
		args []string
	}{
		{"task_list", []string{"task", "list", "--json"}},
		{"task_show", []string{"task", "show", last, "--json"}},
		{"peer_ready", []string{"ready", "--json"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			for range b.N {
				sudocodeIn(b, bin, dir, env, c.args...)
			}
		})
	}
}
