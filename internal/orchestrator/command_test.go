package orchestrator

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/sudocode/sudocode/internal/orchestrator/agent"
	"github.com/sudocode/sudocode/internal/testkit"
)

// shell is the config of a COMMAND task running script with sh -c.
func shell(script string) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"command": []string{"sh", "-c", script}})
	return b
}

func (f *fixture) create(t *testing.T, in CreateInput) Task {
	t.Helper()
	task, err := f.o.Create(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	return task
}

func resultOf(t *testing.T, task Task) runResult {
	t.Helper()
	var r runResult
	if err := json.Unmarshal(task.Result, &r); err != nil {
		t.Fatalf("result %s: %v", task.Result, err)
	}
	return r
}

const agentCommit = `git -c user.name=Agent -c user.email=agent@example.com commit -qm`

// A COMMAND task edits and commits on its branch; without a session it
// ends completed; the user's checkout and its uncommitted edits are
// untouched.
func TestCommandTaskCommits(t *testing.T) {
	repo := testkit.Repo(t)
	os.WriteFile(filepath.Join(repo, "README"), []byte("user edit\n"), 0o644)
	os.WriteFile(filepath.Join(repo, "mine.txt"), []byte("untracked\n"), 0o644)
	head := testkit.Git(t, repo, "rev-parse", "HEAD")
	f := newFixture(t, repo)
	task := f.create(t, CreateInput{Agent: "COMMAND", Description: "Edit files", Config: shell(
		`echo agent > README && mkdir -p src && echo 'package x' > src/x.go && git add -A && ` + agentCommit + ` "agent edit" && echo done`)})
	task = f.wait(t, task.ID)
	if task.Status != StatusCompleted || task.SessionID != "" || task.Error != nil {
		t.Fatalf("task %+v", task)
	}
	if got := testkit.Git(t, repo, "log", "--format=%s", head+".."+task.Branch); got != "agent edit" {
		t.Fatalf("branch log %q", got)
	}
	if got := testkit.Git(t, repo, "show", task.Branch+":README"); got != "agent" {
		t.Fatalf("README on the branch %q", got)
	}
	if b, _ := os.ReadFile(filepath.Join(repo, "README")); string(b) != "user edit\n" {
		t.Fatalf("user's README = %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(repo, "mine.txt")); string(b) != "untracked\n" {
		t.Fatalf("user's mine.txt = %q", b)
	}
	if _, err := os.Stat(filepath.Join(repo, "src")); !os.IsNotExist(err) {
		t.Fatalf("the task wrote into the user's checkout: %v", err)
	}
	if got := testkit.Git(t, repo, "rev-parse", "HEAD"); got != head {
		t.Fatalf("user's HEAD moved to %s", got)
	}
	if got := testkit.Git(t, repo, "status", "--porcelain"); got != "M README\n?? mine.txt" {
		t.Fatalf("user's status %q", got)
	}
	r := resultOf(t, task)
	if r.Outcome != OutcomeSucceeded || r.Commits != 1 || strings.Join(r.FilesChanged, ",") != "README,src/x.go" ||
		r.DiffStat == nil || r.DiffStat.Files != 2 || r.DiffStat.Insertions != 2 || r.DiffStat.Deletions != 1 || r.ExitCode != 0 {
		t.Fatalf("result %s", task.Result)
	}
}

// Ten tasks at once on one repository: each gets its own worktree and
// branch, and each branch holds exactly its own commit.
func TestTenTasksAtOnce(t *testing.T) {
	repo := testkit.Repo(t)
	head := testkit.Git(t, repo, "rev-parse", "HEAD")
	f := newFixture(t, repo)
	waitPool(t, f.o)
	const n = 10
	tasks := make([]Task, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := fmt.Sprintf("file%d.txt", i)
			tasks[i], errs[i] = f.o.Create(context.Background(), CreateInput{Agent: "COMMAND", Description: fmt.Sprintf("task %d", i),
				Config: shell(`sleep 0.2; echo ` + name + ` > ` + name + ` && git add ` + name + ` && ` + agentCommit + ` "add ` + name + `"`)})
		}()
	}
	wg.Wait()
	paths := map[string]bool{}
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("create %d: %v", i, errs[i])
		}
		if paths[tasks[i].WorktreePath] {
			t.Fatalf("worktree %s shared", tasks[i].WorktreePath)
		}
		paths[tasks[i].WorktreePath] = true
	}
	for i := range n {
		task := f.wait(t, tasks[i].ID)
		name := fmt.Sprintf("file%d.txt", i)
		if task.Status != StatusCompleted {
			t.Fatalf("task %d: %+v", i, task)
		}
		if got := testkit.Git(t, repo, "log", "--format=%s", head+".."+task.Branch); got != "add "+name {
			t.Fatalf("branch %d log %q", i, got)
		}
		if got := testkit.Git(t, repo, "diff", "--name-only", head, task.Branch); got != name {
			t.Fatalf("branch %d files %q", i, got)
		}
		if r := resultOf(t, task); strings.Join(r.FilesChanged, ",") != name {
			t.Fatalf("task %d files_changed %v", i, r.FilesChanged)
		}
	}
}

// 100 KB of instructions reach a COMMAND intact on stdin and in
// SUDOCODE_TASK_INSTRUCTIONS.
func TestLargeInstructionsIntact(t *testing.T) {
	f := newFixture(t, testkit.Repo(t))
	var b strings.Builder
	for i := 0; b.Len() < 100_000; i++ {
		fmt.Fprintf(&b, "line %d: don't touch \"$HOME\" or `rm -rf`; ünïcödé {\"json\": true}\n", i)
	}
	instr := b.String()[:100_000]
	sum := sha256.Sum256([]byte(instr))
	want := hex.EncodeToString(sum[:])
	task := f.create(t, CreateInput{Agent: "COMMAND", Description: "big", Instructions: instr, Config: shell(
		`echo "stdin $(sha256sum | cut -d' ' -f1)"; echo "env $(printf %s "$SUDOCODE_TASK_INSTRUCTIONS" | sha256sum | cut -d' ' -f1)"; echo "truncated=${SUDOCODE_TASK_INSTRUCTIONS_TRUNCATED:-no}"`)})
	task = f.wait(t, task.ID)
	evs, err := f.o.Logs(context.Background(), task.ID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, e := range evs {
		if e.Event.Kind == agent.KindLog {
			lines = append(lines, e.Event.Text)
		}
	}
	if got := strings.Join(lines, "\n"); got != "stdin "+want+"\nenv "+want+"\ntruncated=no" {
		t.Fatalf("agent saw:\n%s\nwant hash %s", got, want)
	}
}

// A run that changes nothing is a noop; files_changed includes files the
// agent left uncommitted and untracked.
func TestNoopAndUncommittedChanges(t *testing.T) {
	f := newFixture(t, testkit.Repo(t))
	noop := f.wait(t, f.create(t, CreateInput{Agent: "COMMAND", Description: "look", Config: shell(`ls >/dev/null`)}).ID)
	if r := resultOf(t, noop); noop.Status != StatusCompleted || r.Outcome != OutcomeNoop || r.Commits != 0 || len(r.FilesChanged) != 0 {
		t.Fatalf("noop task %+v %s", noop, noop.Result)
	}
	task := f.wait(t, f.create(t, CreateInput{Agent: "COMMAND", Description: "edit", Config: shell(
		`echo changed > README; echo new > new.txt; mkdir d; echo x > d/y.txt; echo ignored > skip.log; echo '*.log' > .gitignore`)}).ID)
	r := resultOf(t, task)
	if r.Outcome != OutcomeSucceeded || r.Commits != 0 || strings.Join(r.FilesChanged, ",") != ".gitignore,README,d/y.txt,new.txt" {
		t.Fatalf("result %s", task.Result)
	}
	// The worktree's own index was not touched: the files are still untracked.
	if got := testkit.Git(t, task.WorktreePath, "status", "--porcelain"); got != "M README\n?? .gitignore\n?? d/\n?? new.txt" {
		t.Fatalf("worktree status %q", got)
	}
	evs, _ := f.o.Logs(context.Background(), task.ID, 0, 0)
	last := evs[len(evs)-1].Event
	if last.Kind != agent.KindFileChange || strings.Join(last.Files, ",") != ".gitignore,README,d/y.txt,new.txt" || last.Data["source"] != "git" {
		t.Fatalf("last event %+v", last)
	}
	// A failing command is failed whatever it changed.
	failed := f.wait(t, f.create(t, CreateInput{Agent: "COMMAND", Description: "fail", Config: shell(`exit 4`)}).ID)
	if r := resultOf(t, failed); failed.Status != StatusFailed || r.Outcome != OutcomeFailed || r.ExitCode != 4 {
		t.Fatalf("failed task %+v %s", failed, failed.Result)
	}
}

// claudeStandIn is a stand-in `claude` printing a session and a result.
const claudeStandIn = `#!/bin/sh
cat > /dev/null
sid=sess-1
for a in "$@"; do [ "$prev" = --resume ] && sid="$a"; prev="$a"; done
echo '{"type":"system","subtype":"init","session_id":"'$sid'"}'
echo resumed-$sid >> log.txt
echo '{"type":"result","subtype":"success","is_error":false,"result":"All done.","total_cost_usd":0.25,"usage":{"input_tokens":10,"output_tokens":5},"session_id":"'$sid'"}'
`

// A successful run with a resumable session waits; new instructions
// resume it; an explicit end completes it. A COMMAND (no session) ends
// completed at once.
func TestWaitingVersusCompleted(t *testing.T) {
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "claude"), []byte(claudeStandIn), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	f := newFixture(t, testkit.Repo(t))
	ctx := context.Background()
	task := f.wait(t, f.create(t, CreateInput{Agent: "CLAUDECODE", Description: "fix it"}).ID)
	r := resultOf(t, task)
	if task.Status != StatusWaiting || task.SessionID != "sess-1" || r.Message != "All done." || r.CostUSD == nil || *r.CostUSD != 0.25 ||
		r.Tokens == nil || r.Tokens.Output != 5 || r.Outcome != OutcomeSucceeded {
		t.Fatalf("claude task %+v %s", task, task.Result)
	}
	if _, err := f.o.Update(ctx, task.ID, UpdateInput{Instructions: "and the tests"}); err != nil {
		t.Fatal(err)
	}
	task = f.wait(t, task.ID)
	if task.Status != StatusWaiting {
		t.Fatalf("after resume %+v", task)
	}
	if got, err := os.ReadFile(filepath.Join(task.WorktreePath, "log.txt")); err != nil || string(got) != "resumed-sess-1\nresumed-sess-1\n" {
		t.Fatalf("runs %q (%v)", got, err)
	}
	end, err := f.o.End(ctx, task.ID, EndInput{KeepBranch: true})
	if err != nil || end.Task.Status != StatusCompleted {
		t.Fatalf("end %+v %v", end, err)
	}
	cmd := f.wait(t, f.create(t, CreateInput{Agent: "COMMAND", Description: "plain", Config: shell(`true`)}).ID)
	if cmd.Status != StatusCompleted {
		t.Fatalf("command task %+v", cmd)
	}
}
