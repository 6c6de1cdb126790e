package dashboard_test

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/sudocode/sudocode/internal/fleet"
	"github.com/sudocode/sudocode/internal/fleetrun/fleettest"
	"github.com/sudocode/sudocode/internal/serve"
	"github.com/sudocode/sudocode/internal/testkit"
)

// TestBrowserWorkers: with serve's tasks on a fleet, the tasks page shows
// its workers: none at first, then a worker that joins (the section reads
// them again by itself), with its host, agents, labels, runs against
// slots, the task it runs linked to the task's page, and its last
// heartbeat; what a worker says of itself shows as text. Without a fleet
// there is no such section.
func TestBrowserWorkers(t *testing.T) {
	b := newBrowser(t)
	f := newFixture(t)
	fl := fleettest.Start(t, f.dir, "box-1")
	base, srv := startServeWith(t, f, serve.Options{Token: browserToken, Fleet: fl.Setup})
	if srv.Tasks == nil {
		t.Fatalf("tasks unavailable: %s", srv.TasksUnavailable)
	}
	b.do(t, chromedp.Navigate(base+"/?token="+browserToken+"#/tasks"))
	b.waitFor(t, "the empty state of the workers", `document.getElementById('no-workers') !== null`)
	eval[bool](t, b, `(window.__sameDocument = true)`)

	// A host and a label are the worker's own words: text, never markup.
	evilHost := `<img src=x onerror="window.__pwned = 1">`
	_, dir := fl.Worker(t, "box-1", fleet.WorkerInfo{Host: evilHost, CLIs: []string{"command"}, Labels: []string{"<b>gpu</b>"}, Slots: 2})
	row := `document.querySelector('#worker-list tr[data-id="box-1"]')`
	b.waitFor(t, "the worker's row", row+` !== null`)
	cells := func() []string {
		return eval[[]string](t, b, `Array.from(`+row+`.cells).map(c => c.textContent)`)
	}
	got := cells()
	if len(got) != 7 || got[0] != "box-1" || got[1] != evilHost || got[2] != "command" || strings.TrimSpace(got[3]) != "<b>gpu</b>" || got[4] != "0 / 2" || got[5] != "idle" {
		t.Errorf("the worker's row: %q", got)
	}
	if len(got) == 7 && !regexp.MustCompile(`^\d+ (s|min) ago$`).MatchString(got[6]) {
		t.Errorf("the last heartbeat reads %q", got[6])
	}

	// A task the worker runs is linked from its row, by its description.
	task := startHeld(t, srv.Tasks, "Hold <i>on</i> the worker")
	link := row + `.querySelector('li[data-task=` + js(task.ID) + `] a')`
	b.waitFor(t, "the task in the worker's row", link+` !== null && `+row+`.cells[4].textContent === '1 / 2'`)
	if got := eval[[]string](t, b, `[`+link+`.textContent, `+link+`.getAttribute('href')]`); got[0] != "Hold <i>on</i> the worker" || got[1] != "#/task/"+task.ID {
		t.Errorf("the task's link: %q", got)
	}
	b.screenshot(t, "workers")
	b.click(t, `#worker-list li[data-task=`+js(task.ID)+`] a`)
	b.waitFor(t, "the task's page", `document.getElementById('task-head') !== null && location.hash === `+js("#/task/"+task.ID))
	b.waitFor(t, "the agent started on the worker", `Array.from(document.querySelectorAll('#task-log .log-line .text')).some(e => e.textContent === 'started')`)

	releaseRun(t, dir, task.ID)
	if err := srv.Tasks.Wait(testkit.Context(t, time.Minute), task.ID); err != nil {
		t.Fatal(err)
	}
	eval[string](t, b, `location.hash = '#/tasks'`)
	b.waitFor(t, "the worker idle again", row+` !== null && `+row+`.cells[4].textContent === '0 / 2' && `+row+`.cells[5].textContent === 'idle'`)
	if !eval[bool](t, b, `window.__pwned === undefined && document.querySelectorAll('main img, main b, main i').length === 0`) {
		t.Error("a worker's or a task's text became markup")
	}
	if !eval[bool](t, b, `window.__sameDocument === true`) {
		t.Error("the page was reloaded")
	}
	b.settle(t)
	if errs := b.errors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}

	// Without a fleet: the tasks page has no Workers section.
	base2, _ := startServe(t, newFixture(t))
	b.do(t, chromedp.Navigate(base2+"/?token="+browserToken+"#/tasks"))
	b.waitFor(t, "the tasks page without a fleet", `document.body.dataset.view === 'tasks' && document.querySelector('main h1') !== null`)
	if eval[bool](t, b, `document.getElementById('workers') !== null`) {
		t.Error("a Workers section without a fleet")
	}
}
