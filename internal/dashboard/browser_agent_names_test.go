package dashboard_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserAgentNames: the page names the agents as the CLI's --agent
// does (command, not COMMAND) in the start form, the task's header and the
// tasks list, while the form still sends the tool kind; a file_change line
// of the log lists the files, as the CLI prints it, without the raw count.
func TestBrowserAgentNames(t *testing.T) {
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
	if names := eval[string](t, b, `Array.from(document.querySelectorAll('#task-tool option')).map(o => o.value + '=' + o.textContent).join(' ')`); !strings.Contains(names, "COMMAND=command") || strings.Contains(names, "=COMMAND") {
		t.Errorf("the agent options: %s", names)
	}
	script := `echo hi > hi.txt; git add hi.txt; git -c user.name=t -c user.email=t@example.com commit -q -m hi`
	b.fill(t, "#task-tool", "COMMAND")
	b.fill(t, "#task-config", `{"command": ["sh", "-c", `+js(script)+`]}`)
	b.press(t, "task-start")
	b.waitFor(t, "the task page", `location.hash.startsWith('#/task/')`)
	b.waitFor(t, "the completed status", `document.querySelector('#task-status .badge').textContent === 'waiting for review'`)
	if got := eval[string](t, b, `document.getElementById('task-agent').textContent`); got != "command" {
		t.Errorf("the task's agent reads %q", got)
	}
	b.waitFor(t, "the file_change line", `Array.from(document.querySelectorAll('#task-log .log-line.k-file_change .text')).some(e => e.textContent === 'hi.txt')`)
	if text := eval[string](t, b, `document.getElementById('task-log').textContent`); strings.Contains(text, "files changed") {
		t.Errorf("the log shows the raw count: %s", text)
	}
	eval[string](t, b, `location.hash = '#/tasks'`)
	b.waitFor(t, "the tasks list naming the agent", `Array.from(document.querySelectorAll('td')).some(e => e.textContent === 'command')`)
}
