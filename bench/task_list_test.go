package bench_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
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

// trackerRepo makes dir a git repository (if it is not one) with a
// tracker (sudocode init), all committed, and returns the environment the
// binary runs with in it: its task worktrees go under worktrees.
func trackerRepo(b *testing.B, bin, dir, worktrees string) []string {
	b.Helper()
	env := append(os.Environ(), "SUDOCODE_ACTOR=bench", orchestrator.EnvWorktrees+"="+worktrees,
		"GIT_AUTHOR_NAME=Bench", "GIT_AUTHOR_EMAIL=bench@example.com", "GIT_COMMITTER_NAME=Bench", "GIT_COMMITTER_EMAIL=bench@example.com")
	if _, err := os.Stat(filepath.Join(dir, ".git")); err != nil {
		gitRun(b, dir, env, "init", "-q", "-b", "main")
	}
	sudocodeIn(b, bin, dir, env, "init", "--prefix", "bench")
	gitRun(b, dir, env, "add", "-A")
	gitRun(b, dir, env, "commit", "-qm", "tracker")
	return env
}

func gitRun(b *testing.B, dir string, env []string, args ...string) {
	b.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = dir, env
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// BenchmarkTaskList measures reading tasks, whole processes, on a project
// with 100 finished tasks (each with its worktree, as a COMMAND agent that
// committed a file leaves it): task list and task show, against the peer
// sudocode ready on the same repository, a read of the tracker.
func BenchmarkTaskList(b *testing.B) {
	bin := testkit.Binary(b, "./cmd/sudocode")
	dir, worktrees := b.TempDir(), b.TempDir()
	env := trackerRepo(b, bin, dir, worktrees)
	ctx := context.Background()
	data, err := orchestrator.DataDir(ctx, dir)
	if err != nil {
		b.Fatal(err)
	}
	o, closeFn, err := orchestrator.Open(ctx, dir, data, "bench", worktrees)
	if err != nil {
		b.Fatal(err)
	}
	var last string
	for range 100 {
		t, err := o.Create(ctx, orchestrator.CreateInput{Tool: "COMMAND", Description: "bench task",
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
