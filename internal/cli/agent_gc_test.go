package cli_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/orchestrator"
	"github.com/sudocode/sudocode/internal/orchestrator/agent"
	"github.com/sudocode/sudocode/internal/testkit"
)

// "sudocode agent gc" removes the worktree of a finished task that holds
// nothing uncommitted, deletes its branch when it has no commit, and keeps
// (and reports) one with uncommitted work.
func TestAgentGC(t *testing.T) {
	repo := testkit.Repo(t)
	data, wt := t.TempDir(), t.TempDir()
	ctx := context.Background()
	store, err := orchestrator.OpenStore(ctx, data)
	if err != nil {
		t.Fatal(err)
	}
	lookup := func(kind string) (agent.Adapter, bool) { a, err := agent.Lookup(kind); return a, err == nil }
	o := orchestrator.New(store, lookup, orchestrator.Options{Repo: repo, Worktrees: wt, NoPool: true})
	run := func(desc string, command ...string) orchestrator.Task {
		task, err := o.Create(ctx, orchestrator.CreateInput{Agent: "COMMAND", Description: desc, Config: mustJSON(t, map[string]any{"command": command})})
		if err != nil {
			t.Fatal(err)
		}
		var got orchestrator.Task
		testkit.WaitFor(t, 20*time.Second, "task "+task.ID+" ("+desc+") to finish", func() bool {
			got, _ = o.Get(ctx, task.ID)
			return got.Status != orchestrator.StatusInProgress
		})
		return got
	}
	clean := run("clean", "false") // fails: finished, nothing to keep
	dirty := run("dirty", "sh", "-c", "echo wip > wip.txt; exit 1")
	for _, task := range []orchestrator.Task{clean, dirty} {
		if task.Status != orchestrator.StatusFailed {
			t.Fatalf("task %s is %s", task.ID, task.Status)
		}
	}
	o.Close()
	store.Close()

	cmd := exec.Command(sudocodeBin, "agent", "gc", "--project", repo, "--data", data, "--worktrees", wt, "--json")
	cmd.Env = childEnv(t)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("agent gc: %v %s", err, out)
	}
	var res orchestrator.GCResult
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(res.Kept) != 1 || res.Kept[0].TaskID != dirty.ID {
		t.Fatalf("kept %+v, want the dirty task %s: %s", res.Kept, dirty.ID, out)
	}
	if _, err := os.Stat(filepath.Join(dirty.WorktreePath, "wip.txt")); err != nil {
		t.Fatalf("the uncommitted work is gone: %v", err)
	}
	if len(res.Removed) != 1 || res.Removed[0] != clean.ID || len(res.BranchesDeleted) != 1 || res.BranchesDeleted[0] != clean.Branch {
		t.Fatalf("removed %v, branches %v; want task %s and branch %s: %s", res.Removed, res.BranchesDeleted, clean.ID, clean.Branch, out)
	}
	if _, err := os.Stat(clean.WorktreePath); !os.IsNotExist(err) {
		t.Fatalf("the clean worktree is still there: %v", err)
	}
	// Text output, and nothing left to collect but the kept one.
	cmd = exec.Command(sudocodeBin, "agent", "gc", "--project", repo, "--data", data, "--worktrees", wt)
	cmd.Env = childEnv(t)
	if out, err := cmd.Output(); err != nil || string(out) != "kept task "+dirty.ID+" at "+dirty.WorktreePath+": "+res.Kept[0].Reason+"\n  ?? wip.txt\n" {
		t.Fatalf("second gc: %v %q", err, out)
	}
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
