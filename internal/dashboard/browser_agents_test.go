package dashboard_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// TestBrowserAgentWork: through the page only, start a COMMAND agent on
// an issue, watch its log stream, read its report, comment on a line of
// its branch diff and send the comment as a follow-up that reaches the
// agent, then start another and stop it.
func TestBrowserAgentWork(t *testing.T) {
	b := newBrowser(t)
	f := newFixture(t)
	base, srv := startServe(t, f)
	if srv.Orchestrator == nil {
		t.Fatalf("tasks unavailable: %s", srv.TasksUnavailable)
	}
	b.do(t, chromedp.Navigate(base+"/?token="+srv.WriteToken))
	b.waitFor(t, "the writable board", `document.getElementById('new-issue') !== null`)
	eval[string](t, b, `location.hash = `+js("#/issue/"+f.open))
	b.click(t, "#start-agent")
	b.waitFor(t, "the start form", `document.getElementById('task-form') !== null`)
	if !eval[bool](t, b, `document.getElementById('task-instructions-input').value.startsWith('Design the token store')`) {
		t.Error("the instructions are not drawn from the issue")
	}
	// The agent: each run says what it was asked, appends a line to f.txt
	// and commits, so every run shows in the log and the diff.
	script := `read -r first; echo "asked: $first"; printf '%s\n' "$SUDOCODE_TASK_INSTRUCTIONS" >> asked.txt; echo hello >> f.txt; ` +
		`git add f.txt asked.txt; git -c user.name=t -c user.email=t@example.com commit -q -m work`
	b.act(t, chromedp.SetValue("#task-tool", "COMMAND"), chromedp.SendKeys("#task-config", `{"command": ["sh", "-c", `+js(script)+`]}`))
	b.screenshot(t, "task-start")
	b.click(t, "#task-start")
	b.waitFor(t, "the task page", `location.hash.startsWith('#/task/')`)
	id := strings.TrimPrefix(eval[string](t, b, `location.hash`), "#/task/")
	logHas := func(s string) string {
		return `Array.from(document.querySelectorAll('#task-log .log-line .text')).some(e => e.textContent.startsWith(` + js(s) + `))`
	}
	b.waitFor(t, "the agent's first line", logHas("asked: Design the token store"))
	b.waitFor(t, "the completed status", `document.querySelector('#task-status .badge').textContent === 'completed'`)

	b.click(t, "#tab-report")
	b.waitFor(t, "the report", `document.getElementById('task-usage') !== null && document.getElementById('task-instructions').textContent.startsWith('Design the token store')`)
	b.screenshot(t, "task-report")

	// A comment on the added line, sent as a follow-up.
	b.click(t, "#tab-diff")
	b.waitFor(t, "the diff", `document.querySelector('#task-diff .dl.add[data-file="f.txt"]') !== null`)
	b.click(t, `#task-diff .dl.add[data-file="f.txt"]`)
	b.waitFor(t, "the comment box", `document.activeElement && document.activeElement.id === 'diff-comment-text'`)
	b.key(t, "say goodbye too"+kb.Enter)
	b.waitFor(t, "the review", `document.getElementById('send-review') !== null`)
	b.screenshot(t, "task-review")
	b.click(t, "#send-review")
	b.click(t, "#tab-log")
	b.waitFor(t, "the follow-up reaching the agent", logHas("asked: Review comments on your branch"))
	task, err := srv.Orchestrator.Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	asked, _ := os.ReadFile(filepath.Join(task.WorktreePath, "asked.txt"))
	if !strings.Contains(string(asked), "f.txt:1") || !strings.Contains(string(asked), "say goodbye too") {
		t.Errorf("the agent was asked:\n%s", asked)
	}

	// Another agent, on the blocked issue: its card shows the agent at
	// work; stopped from its page.
	eval[string](t, b, `location.hash = `+js("#/issue/"+f.waiting))
	b.click(t, "#start-agent")
	b.waitFor(t, "the start form", `document.getElementById('task-form') !== null`)
	b.act(t, chromedp.SetValue("#task-tool", "COMMAND"), chromedp.SendKeys("#task-config", `{"command": ["sleep", "30"]}`))
	b.click(t, "#task-start")
	b.waitFor(t, "the stop button", `document.getElementById('stop-task') !== null`)
	second := eval[string](t, b, `location.hash`)
	eval[string](t, b, `location.hash = '#/board'`)
	b.waitFor(t, "the agent on the card", `(() => { const c = document.getElementById('card-`+f.waiting+`');
		return !!c && !!c.querySelector('.agent-line') && c.querySelector('.agent-line').textContent.includes('COMMAND') })()`)
	b.screenshot(t, "board-agent")
	eval[string](t, b, `location.hash = `+js(second))
	b.click(t, "#stop-task")
	b.waitFor(t, "the cancelled status", `document.querySelector('#task-status .badge').textContent === 'cancelled'`)

	time.Sleep(200 * time.Millisecond)
	if errs := b.errors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}
