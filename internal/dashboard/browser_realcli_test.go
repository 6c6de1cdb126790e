package dashboard_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/sudocode/sudocode/internal/modelsim"
)

// TestBrowserRealAgent: through the page only, start a real coding-agent
// CLI (Claude Code, the pinned version) on an issue, against the model
// simulator: the page offers it once it is installed, its log streams the
// model's answer and its usage, and the file it wrote is in its worktree.
func TestBrowserRealAgent(t *testing.T) {
	b := newBrowser(t)
	sim := modelsim.Start(t)
	// The server hands its agents its own environment (the CLI's
	// variables only): the CLI on PATH, the simulator as its API.
	for _, kv := range modelsim.SetupClaude(t, sim) {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	f := newFixture(t)
	base, srv := startServe(t, f)
	if srv.Tasks == nil {
		t.Fatalf("tasks unavailable: %s", srv.TasksUnavailable)
	}
	b.do(t, chromedp.Navigate(base+"/?token="+srv.OpenToken))
	b.waitFor(t, "the writable board", `document.getElementById('new-issue') !== null`)
	eval[string](t, b, `location.hash = `+js("#/issue/"+f.open))
	b.click(t, "#start-agent")
	b.waitFor(t, "the start form", `document.getElementById('task-form') !== null`)
	if !eval[bool](t, b, `Array.from(document.querySelectorAll('#task-tool option')).some(o => o.value === 'CLAUDECODE')`) {
		t.Fatal("the installed Claude Code is not offered")
	}
	script := "@sim write greeting.txt \"hello from the agent\\n\"\n@sim text \"Wrote greeting.txt.\""
	b.act(t, chromedp.SetValue("#task-tool", "CLAUDECODE"), chromedp.SetValue("#task-instructions-input", script))
	b.click(t, "#task-start")
	b.waitFor(t, "the task page", `location.hash.startsWith('#/task/')`)
	id := strings.TrimPrefix(eval[string](t, b, `location.hash`), "#/task/")
	b.waitFor(t, "the agent's answer in the log", `Array.from(document.querySelectorAll('#task-log .log-line .text')).some(e => e.textContent.includes('Wrote greeting.txt.'))`)
	// A CLI with sessions waits for a follow-up once its run is done.
	b.waitFor(t, "the run's end", `document.querySelector('#task-status .badge').textContent === 'waiting for review'`)
	// The usage line reads the figures the CLI reported.
	b.waitFor(t, "the usage line", `Array.from(document.querySelectorAll('#task-log .log-line .text')).some(e => /^tokens in \d+ \/ out \d+/.test(e.textContent))`)
	task, err := srv.Tasks.Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(task.WorktreePath, "greeting.txt")); string(got) != "hello from the agent\n" {
		t.Errorf("greeting.txt in the worktree = %q", got)
	}
	if errs := b.errors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}
