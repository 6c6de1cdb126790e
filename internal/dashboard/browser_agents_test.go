package dashboard_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/sudocode/sudocode/internal/testkit"
)

// TestBrowserAgentWork: through the page only, start a COMMAND agent on
// an issue (its prompt drawn from the tracker), watch its log stream, read
// its report, see in its diff everything the merge takes (an untracked file
// too, its file headers not commentable), comment on a line of it and send
// the comment as a follow-up that reaches the agent; merge it once
// confirmed, which closes the issue, makes its dependent ready and reads
// merged; see a merge that conflicts refused with the conflicting file, the
// checkout unchanged, the task reading conflicted; then start another and
// stop it once confirmed (not when cancelled), which reopens its issue.
func TestBrowserAgentWork(t *testing.T) {
	b := newBrowser(t)
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
	if lines := eval[[]string](t, b, `document.getElementById('main').innerText.split('\n')`); slices.Contains(lines, "null") {
		t.Errorf("the start form shows a line \"null\":\n%s", strings.Join(lines, "\n"))
	}
	if eval[string](t, b, `document.getElementById('task-instructions-input').value`) != "" {
		t.Error("the form prefills instructions the loop draws from the issue itself")
	}
	// The agent: each run says what it was asked, appends a line to f.txt
	// and commits, so every run shows in the log and the diff.
	// It also leaves notes.txt untracked, as Claude Code does with what it
	// writes: the merge takes it, so the diff shows it.
	script := `read -r first; echo "asked: $first"; printf '%s\n' "$SUDOCODE_TASK_INSTRUCTIONS" >> asked.txt; echo hello >> f.txt; ` +
		`git add f.txt asked.txt; git -c user.name=t -c user.email=t@example.com commit -q -m work; echo draft > notes.txt`
	b.fill(t, "#task-tool", "COMMAND")
	b.fill(t, "#task-config", `{"command": ["sh", "-c", `+js(script)+`]}`)
	b.screenshot(t, "task-start")
	b.press(t, "task-start")
	b.waitFor(t, "the task page", `location.hash.startsWith('#/task/')`)
	id := strings.TrimPrefix(eval[string](t, b, `location.hash`), "#/task/")
	logHas := func(s string) string {
		return `Array.from(document.querySelectorAll('#task-log .log-line .text')).some(e => e.textContent.startsWith(` + js(s) + `))`
	}
	b.waitFor(t, "the agent's first line: the prompt from the tracker", logHas("asked: # Issue "+f.open+": Design the token store"))
	b.waitFor(t, "the completed status", `document.querySelector('#task-status .badge').textContent === 'waiting for review'`)

	b.click(t, "#tab-report")
	b.waitFor(t, "the report", `document.getElementById('task-usage') !== null && document.getElementById('task-instructions').textContent.startsWith('# Issue `+f.open+`: Design the token store')`)
	b.screenshot(t, "task-report")

	// A comment on the added line, sent as a follow-up.
	b.click(t, "#tab-diff")
	b.waitFor(t, "the diff", `document.querySelector('#task-diff .dl.add[data-file="f.txt"]') !== null`)
	b.waitFor(t, "the untracked file in the diff, said to be not committed yet",
		`document.querySelector('#task-diff .dl.add[data-file="notes.txt"]') !== null && document.getElementById('diff-uncommitted').textContent.includes('notes.txt')`)
	if n := eval[int](t, b, `(() => { const hs = Array.from(document.querySelectorAll('#task-diff .review-file-head, #task-diff .dl.hunk'));
		return hs.some(e => e.dataset.line !== undefined || e.tabIndex >= 0) ? -1 : hs.length })()`); n < 4 {
		t.Errorf("the diff's file headers and hunk lines: %d found, or some commentable (-1)", n)
	}
	b.click(t, `#task-diff .dl.add[data-file="f.txt"]`)
	b.waitFor(t, "the comment box", `document.activeElement && document.activeElement.id === 'diff-comment-text'`)
	b.key(t, "say goodbye too"+kb.Enter)
	b.waitFor(t, "the comment under its line", `document.querySelector('#task-diff .dl[data-file="f.txt"] + .code-comment[data-state="open"]') !== null`)
	b.screenshot(t, "task-review")
	b.press(t, "send-review")
	// The follow-up starts a run: the header redraws with a Stop button,
	// which a mouse click aimed at the tab before the redraw can land on.
	b.press(t, "tab-log")
	b.waitFor(t, "the follow-up reaching the agent", logHas("asked: Review comments on your branch"))
	task, err := srv.Tasks.Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	asked, _ := os.ReadFile(filepath.Join(task.WorktreePath, "asked.txt"))
	if !strings.Contains(string(asked), "f.txt:1") || !strings.Contains(string(asked), "say goodbye too") {
		t.Errorf("the agent was asked:\n%s", asked)
	}

	// An agent on the in-progress issue writes f.txt its own way: its
	// merge will conflict with the first's.
	eval[string](t, b, `location.hash = `+js("#/issue/"+f.progress))
	b.click(t, "#start-agent")
	b.waitFor(t, "the start form", `document.getElementById('task-form') !== null`)
	other := `echo other > f.txt; git add f.txt; git -c user.name=t -c user.email=t@example.com commit -q -m other`
	b.fill(t, "#task-tool", "COMMAND")
	b.fill(t, "#task-config", `{"command": ["sh", "-c", `+js(other)+`]}`)
	b.press(t, "task-start")
	b.waitFor(t, "the other task page", `location.hash.startsWith('#/task/') && location.hash !== `+js("#/task/"+id))
	conflicting := eval[string](t, b, `location.hash`)
	b.waitFor(t, "the other task's page", onTask(strings.TrimPrefix(conflicting, "#/task/")))
	b.waitFor(t, "the other's merge button", `document.getElementById('merge-task') !== null`)

	// Merge the first from its page: the issue closes, its dependent is ready.
	eval[string](t, b, `location.hash = `+js("#/task/"+id))
	b.waitFor(t, "the first task's page", onTask(id))
	b.waitFor(t, "the merge button", `document.getElementById('merge-task') !== null && document.querySelector('#task-status .badge').textContent === 'waiting for review'`)
	b.press(t, "merge-task")
	b.waitFor(t, "the merge's confirmation naming the untracked file", `document.getElementById('confirm-dialog') !== null && document.getElementById('confirm-dialog').textContent.includes('notes.txt')`)
	b.screenshot(t, "task-merge-confirm")
	b.press(t, "confirm-ok")
	b.waitFor(t, "the merge button gone", `document.getElementById('task-head') !== null && document.getElementById('merge-task') === null && document.getElementById('merge-error') === null`)
	b.waitFor(t, "the task reading merged", `document.querySelector('#task-status .badge').textContent === 'merged'`)
	if b, err := os.ReadFile(filepath.Join(f.dir, "f.txt")); err != nil || string(b) != "hello\nhello\n" {
		t.Errorf("the checkout's f.txt after the merge: %q %v", b, err)
	}
	if b, err := os.ReadFile(filepath.Join(f.dir, "notes.txt")); err != nil || string(b) != "draft\n" {
		t.Errorf("the checkout's notes.txt after the merge: %q %v", b, err)
	}
	b.click(t, "#task-issue a")
	b.waitFor(t, "the issue closed", `document.getElementById('issue-status') !== null && document.getElementById('issue-status').value === 'closed'`)
	eval[string](t, b, `location.hash = '#/board'`)
	b.waitFor(t, "the dependent ready", `(() => { const c = document.getElementById('card-`+f.waiting+`'); return !!c && c.classList.contains('is-ready') })()`)

	// The conflicting one is refused, naming the file; nothing changes.
	head := testkit.Git(t, f.dir, "rev-parse", "HEAD")
	eval[string](t, b, `location.hash = `+js(conflicting))
	b.waitFor(t, "the other task's page", onTask(strings.TrimPrefix(conflicting, "#/task/")))
	b.waitFor(t, "the other's merge button", `document.getElementById('merge-task') !== null`)
	b.press(t, "merge-task")
	b.press(t, "confirm-ok")
	b.waitFor(t, "the refusal naming f.txt", `document.getElementById('merge-error') !== null && document.getElementById('merge-error').textContent.includes('f.txt')`)
	b.waitFor(t, "the task reading conflicted", `document.querySelector('#task-status .badge').textContent === 'conflicted'`)
	b.screenshot(t, "task-merge-conflict")
	if now := testkit.Git(t, f.dir, "rev-parse", "HEAD"); now != head {
		t.Errorf("a refused merge moved the checkout from %s to %s", head, now)
	}
	if is, err := f.repo.ShowIssue(context.Background(), f.progress); err != nil || is.Status == "closed" {
		t.Errorf("a refused merge closed its issue: %v", err)
	}

	// Another agent, on the now ready dependent: its card shows the agent
	// at work; stopped from its page.
	eval[string](t, b, `location.hash = `+js("#/issue/"+f.waiting))
	b.click(t, "#start-agent")
	b.waitFor(t, "the start form", `document.getElementById('task-form') !== null`)
	b.fill(t, "#task-tool", "COMMAND")
	b.fill(t, "#task-config", `{"command": ["sleep", "30"]}`)
	b.press(t, "task-start")
	b.waitFor(t, "the stop button", `document.getElementById('stop-task') !== null`)
	second := eval[string](t, b, `location.hash`)
	eval[string](t, b, `location.hash = '#/board'`)
	b.waitFor(t, "the agent on the card", `(() => { const c = document.getElementById('card-`+f.waiting+`');
		return !!c && !!c.querySelector('.agent-line') && c.querySelector('.agent-line').textContent.includes('COMMAND') })()`)
	b.screenshot(t, "board-agent")
	eval[string](t, b, `location.hash = `+js(second))
	b.waitFor(t, "the second task's page", onTask(strings.TrimPrefix(second, "#/task/")))
	b.press(t, "stop-task")
	b.waitFor(t, "the stop's confirmation", `document.getElementById('confirm-dialog') !== null`)
	b.press(t, "confirm-cancel")
	b.waitFor(t, "the confirmation gone", `document.getElementById('confirm-dialog') === null`)
	if st, _ := srv.Tasks.Get(context.Background(), strings.TrimPrefix(second, "#/task/")); st.Status != "in_progress" {
		t.Errorf("a stop not confirmed left the task %s", st.Status)
	}
	b.press(t, "stop-task")
	b.press(t, "confirm-ok")
	b.waitFor(t, "the cancelled status", `document.querySelector('#task-status .badge').textContent === 'stopped'`)
	testkit.WaitFor(t, 30*time.Second, "the stopped task's issue open again", func() bool {
		is, err := f.repo.ShowIssue(context.Background(), f.waiting)
		return err == nil && is.Status == "open" && (is.Assignee == nil || *is.Assignee == "") && strings.Contains(is.Description, "The issue is open again.")
	})

	// The list tells them apart.
	eval[string](t, b, `location.hash = '#/tasks'`)
	b.waitFor(t, "the list's states", `(() => { const st = (id) => { const r = document.querySelector('#task-list tr[data-id="' + id + '"] .badge'); return r ? r.textContent : '' };
		return st(`+js(id)+`) === 'merged' && st(`+js(strings.TrimPrefix(conflicting, "#/task/"))+`) === 'conflicted' && st(`+js(strings.TrimPrefix(second, "#/task/"))+`) === 'stopped' })()`)

	b.settle(t)
	// The refused merge's 409, which the page shows, is logged by Chromium
	// as a failed load; nothing else may be.
	for _, e := range b.errors() {
		if !strings.Contains(e, "status of 409") || !strings.Contains(e, "/merge") {
			t.Errorf("console error: %s", e)
		}
	}
}

// TestBrowserRunReady: from the Tasks list, "Run ready" with a limit of 2
// works the blocking issue to a merge, which makes its dependent ready, and
// then the dependent; the page lists both outcomes.
func TestBrowserRunReady(t *testing.T) {
	b := newBrowser(t)
	f := newFixture(t)
	base, srv := startServe(t, f)
	if srv.Tasks == nil {
		t.Fatalf("tasks unavailable: %s", srv.TasksUnavailable)
	}
	b.do(t, chromedp.Navigate(base+"/?token="+srv.OpenToken+"#/tasks"))
	b.waitFor(t, "the run form", `document.getElementById('run-form') !== null`)
	script := `echo "$SUDOCODE_TASK_INSTRUCTIONS" | head -1 >> ran.txt; git add ran.txt; git -c user.name=t -c user.email=t@example.com commit -q -m work`
	b.fill(t, "#run-tool", "COMMAND")
	b.fill(t, "#run-limit", "2")
	b.fill(t, "#run-config", `{"command": ["sh", "-c", `+js(script)+`]}`)
	b.press(t, "run-ready")
	b.waitFor(t, "both merged", `document.querySelectorAll('#run-result li[data-outcome="merged"]').length === 2`)
	got := eval[[]string](t, b, `Array.from(document.querySelectorAll('#run-result li')).map(e => e.dataset.issue)`)
	if len(got) != 2 || got[0] != f.open || got[1] != f.waiting {
		t.Errorf("the run worked %v, want [%s %s]", got, f.open, f.waiting)
	}
	ran, _ := os.ReadFile(filepath.Join(f.dir, "ran.txt"))
	if !strings.Contains(string(ran), f.open) || !strings.Contains(string(ran), f.waiting) {
		t.Errorf("the checkout's ran.txt after the run:\n%s", ran)
	}
	for _, e := range b.errors() {
		t.Errorf("console error: %s", e)
	}
}

// onTask is true once the page shows the task id. Changing the hash
// redraws the page asynchronously: until then the previous task's header,
// its Merge button included, is still there to be found (and clicked).
func onTask(id string) string {
	return `(() => { const d = document.querySelector('#task-head dd.id'); return !!d && d.textContent === ` + js(id) + ` })()`
}
