package dashboard_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/sudocode/sudocode/internal/orchestrator"
	"github.com/sudocode/sudocode/internal/testkit"
)

// TestBrowserTaskStates: the Tasks list names each task's state in words a
// person tells apart (running, waiting for review, failed, merged,
// conflicted, stopped) and filters by them; the Merge dialog offers
// merge_task's strategies and the one picked is the one used; Merge and
// Stop ask first; a merged task has no follow-up box and its closed issue
// no "Start an agent", nor the new-task form its address opens; Run ready sends its parallel beside its limit.
func TestBrowserTaskStates(t *testing.T) {
	b := newBrowser(t)
	f := newFixture(t)
	base, srv := startServe(t, f)
	if srv.Tasks == nil {
		t.Fatalf("tasks unavailable: %s", srv.TasksUnavailable)
	}
	ctx := context.Background()
	commit := `git add -A && git -c user.name=t -c user.email=t@example.com commit -q -m work`
	cmd := func(script string) []byte {
		c, _ := json.Marshal(map[string]any{"command": []string{"sh", "-c", script}})
		return c
	}
	// One waiting for review (on an issue), one running, one failed, and
	// one whose a.txt will conflict with the first's once that is merged.
	review, err := srv.Tasks.Start(ctx, orchestrator.StartInput{IssueID: f.open, Agent: "COMMAND", Config: cmd("echo a > a.txt && " + commit)})
	if err != nil {
		t.Fatal(err)
	}
	running, err := srv.Tasks.Start(ctx, orchestrator.StartInput{IssueID: f.progress, Agent: "COMMAND", Config: cmd("sleep 60")})
	if err != nil {
		t.Fatal(err)
	}
	failed, err := srv.Tasks.Create(ctx, orchestrator.CreateInput{Agent: "COMMAND", Description: "doomed", Config: cmd("exit 3")})
	if err != nil {
		t.Fatal(err)
	}
	clash, err := srv.Tasks.Create(ctx, orchestrator.CreateInput{Agent: "COMMAND", Description: "clash", Config: cmd("echo d > a.txt && " + commit)})
	if err != nil {
		t.Fatal(err)
	}

	b.do(t, chromedp.Navigate(base+"/?token="+srv.OpenToken+"#/tasks"))
	st := func(id string) string {
		return `(() => { const r = document.querySelector('#task-list tr[data-id="` + id + `"] .badge'); return r ? r.textContent : '' })()`
	}
	b.waitFor(t, "the states in words", st(review.ID)+` === 'waiting for review' && `+st(running.ID)+` === 'running' && `+st(failed.ID)+` === 'failed' && `+st(clash.ID)+` === 'waiting for review'`)

	// The filter shows the failed one alone, then all again.
	b.fill(t, "#task-state-filter", "failed")
	b.waitFor(t, "only the failed task", `document.querySelectorAll('#task-list tbody tr').length === 1 && `+st(failed.ID)+` === 'failed'`)
	b.fill(t, "#task-state-filter", "")
	b.waitFor(t, "every task again", `document.querySelectorAll('#task-list tbody tr').length === 4`)

	// The board's card of the issue under review says so.
	eval[string](t, b, `location.hash = '#/board'`)
	b.waitFor(t, "the card waiting for review", `(() => { const c = document.querySelector('#card-`+f.open+` .agent-line .badge'); return !!c && c.textContent === 'waiting for review' })()`)

	// Merge with the strategy picked in the dialog: a merge commit.
	eval[string](t, b, `location.hash = `+js("#/task/"+review.ID))
	b.waitFor(t, "the task's page", onTask(review.ID))
	b.waitFor(t, "the follow-up box while under review", `document.getElementById('review-form') !== null`)
	b.press(t, "merge-task")
	b.waitFor(t, "the merge dialog with its strategies", `document.getElementById('confirm-dialog') !== null && document.querySelectorAll('#merge-strategy option').length === 4`)
	b.press(t, "confirm-cancel")
	b.waitFor(t, "the dialog gone", `document.getElementById('confirm-dialog') === null`)
	if got, _ := srv.Tasks.Get(ctx, review.ID); got.MergedCommit != "" {
		t.Fatal("a merge not confirmed merged")
	}
	b.press(t, "merge-task")
	b.fill(t, "#merge-strategy", "merge")
	b.screenshot(t, "task-merge-strategy")
	b.press(t, "confirm-ok")
	b.waitFor(t, "the task reading merged", `document.querySelector('#task-status .badge').textContent === 'merged'`)
	b.waitFor(t, "no follow-up box on a merged task", `document.getElementById('review-form') === null`)
	if parents := strings.Fields(testkit.Git(t, f.dir, "rev-list", "--parents", "-n", "1", "HEAD")); len(parents) != 3 {
		t.Errorf("the merge picked as a merge commit made %v", parents)
	}
	b.settle(t) // the merge's answer read before the page reloads
	eval[bool](t, b, `(location.reload(), true)`)
	b.waitFor(t, "the merged task's page reloaded", onTask(review.ID)+` && document.querySelector('#task-status .badge').textContent === 'merged'`)
	if eval[bool](t, b, `document.getElementById('review-form') !== null`) {
		t.Error("a merged task offers a follow-up")
	}

	// Its issue closed: no agent is offered on it.
	eval[string](t, b, `location.hash = `+js("#/issue/"+f.open))
	b.waitFor(t, "the closed issue", `document.getElementById('issue-status') !== null && document.getElementById('issue-status').value === 'closed'`)
	if eval[bool](t, b, `document.getElementById('start-agent') !== null`) {
		t.Error("a closed issue offers to start an agent")
	}
	// Nor does the new-task form, its address typed: it says the issue is
	// closed and how to reopen it.
	eval[string](t, b, `location.hash = `+js("#/new-task/"+f.open))
	b.waitFor(t, "the closed issue's new-task page", `document.body.dataset.view === 'new-task' && document.querySelector('main h1') !== null`)
	if eval[bool](t, b, `document.getElementById('task-form') !== null`) {
		t.Error("the new-task form is offered on a closed issue")
	}
	if msg := eval[string](t, b, `(() => { const m = document.getElementById('task-issue-closed'); return m ? m.textContent : '' })()`); !strings.Contains(msg, f.open+" is closed") || !strings.Contains(msg, "reopen") {
		t.Errorf("the closed issue's new-task page says %q", msg)
	}

	// The clashing task's merge is refused: it reads conflicted.
	eval[string](t, b, `location.hash = `+js("#/task/"+clash.ID))
	b.waitFor(t, "the clashing task's page", onTask(clash.ID))
	b.press(t, "merge-task")
	b.press(t, "confirm-ok")
	b.waitFor(t, "the task reading conflicted", `document.querySelector('#task-status .badge').textContent === 'conflicted'`)

	// Stop asks first.
	eval[string](t, b, `location.hash = `+js("#/task/"+running.ID))
	b.waitFor(t, "the running task's page", onTask(running.ID))
	b.press(t, "stop-task")
	b.waitFor(t, "the stop's confirmation", `document.getElementById('confirm-dialog') !== null`)
	b.press(t, "confirm-ok")
	b.waitFor(t, "the task reading stopped", `document.querySelector('#task-status .badge').textContent === 'stopped'`)

	// Run ready with its parallel: the request carries it, and the ready
	// issue (the merged one's dependent) is worked.
	eval[string](t, b, `location.hash = '#/tasks'`)
	b.waitFor(t, "the run form", `document.getElementById('run-parallel') !== null`)
	eval[bool](t, b, `(() => { window.sent = []; const f = window.fetch; window.fetch = (u, o) => { if (o && o.body) window.sent.push(String(o.body)); return f(u, o) }; return true })()`)
	b.fill(t, "#run-tool", "COMMAND")
	b.fill(t, "#run-limit", "1")
	b.fill(t, "#run-parallel", "2")
	b.fill(t, "#run-config", `{"command": ["sh", "-c", `+js("touch w.txt; git add -A; git -c user.name=t -c user.email=t@example.com commit -q -m work")+`]}`)
	b.press(t, "run-ready")
	b.waitFor(t, "the run's outcome", `document.querySelectorAll('#run-result li[data-outcome="merged"]').length === 1`)
	if !eval[bool](t, b, `window.sent.some((s) => { const o = JSON.parse(s); return o.parallel === 2 && o.limit === 1 })`) {
		t.Errorf("run ready sent %v", eval[[]string](t, b, `window.sent`))
	}
	if _, err := srv.Tasks.Create(ctx, orchestrator.CreateInput{Agent: "COMMAND", Description: "still at it", Config: cmd("sleep 60")}); err != nil {
		t.Fatal(err)
	}
	b.waitFor(t, "every state in the list", st(review.ID)+` === 'merged' && `+st(clash.ID)+` === 'conflicted' && `+st(running.ID)+` === 'stopped' && `+st(failed.ID)+` === 'failed' && document.querySelectorAll('#task-list tbody tr').length === 6 && document.querySelector('#task-list .ts-running') !== null`)
	eval[bool](t, b, `(document.querySelectorAll('.toast').forEach((e) => e.remove()), true)`) // the stop's note, long gone for a reader
	b.screenshot(t, "task-states")

	b.settle(t)
	for _, e := range b.errors() { // the refused merge's 409 is logged as a failed load
		if !strings.Contains(e, "status of 409") || !strings.Contains(e, "/merge") {
			t.Errorf("console error: %s", e)
		}
	}
}
