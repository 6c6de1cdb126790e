package dashboard_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/sudocode/sudocode/internal/orchestrator"
	"github.com/sudocode/sudocode/internal/serve"
	"github.com/sudocode/sudocode/internal/testkit"
)

// reviewBase is app.go as the checkout has it before the task.
const reviewBase = `package app

// Greet says hello.
func Greet(name string) string {
	return "hello, " + name
}
`

// reviewAgent is a COMMAND agent whose first run rewrites app.go and
// commits it; a later run (a follow-up: Count is there) records what it
// was asked, puts two lines above Greet's body and removes Count, leaving
// the file uncommitted in the worktree.
const reviewAgent = `read -r first; echo "asked: $first"
if grep -q Count app.go; then
printf '%s\n' "$SUDOCODE_TASK_INSTRUCTIONS" > asked.txt
cat > app.go <<'EOF'
package app

import "strings"

// Greet says hello.
func Greet(name string) string {
	msg := "hello, " + name
	return strings.TrimSpace(msg)
}
EOF
else
cat > app.go <<'EOF'
package app

// Greet says hello.
func Greet(name string) string {
	msg := "hello, " + name
	return msg
}

func Count() int { return 42 }
EOF
git add app.go; git -c user.name=t -c user.email=t@example.com commit -q -m greet
fi`

// reviewWorld is a browser and a served project whose app.go is
// reviewBase, committed, with tasks available.
func reviewWorld(t *testing.T) (*browser, string, *serve.Server) {
	t.Helper()
	b := newBrowser(t)
	f := newFixture(t)
	if err := writeFile(filepath.Join(f.dir, "app.go"), reviewBase); err != nil {
		t.Fatal(err)
	}
	testkit.Git(t, f.dir, "add", "app.go")
	testkit.Git(t, f.dir, "commit", "-q", "-m", "greet")
	base, srv := startServe(t, f)
	if srv.Tasks == nil {
		t.Fatalf("tasks unavailable: %s", srv.TasksUnavailable)
	}
	return b, base, srv
}

// TestBrowserReviewCommentsFollowTheirCode: review a task like a pull
// request through the page: the changed files in a tree, the diff
// highlighted, unified or side by side (the choice remembered); comment on
// two lines, send both with a follow-up in one box; the follow-up's run
// puts lines above the first and removes the second: the first shows at
// its new line, marked moved and sent, the second stale.
func TestBrowserReviewCommentsFollowTheirCode(t *testing.T) {
	b, base, srv := reviewWorld(t)
	b.do(t, chromedp.Navigate(base+"/?token="+srv.OpenToken))
	b.waitFor(t, "the writable board", `document.getElementById('new-issue') !== null`)
	eval[string](t, b, `location.hash = '#/new-task'`)
	b.waitFor(t, "the start form", `document.getElementById('task-form') !== null`)
	b.fill(t, "#task-tool", "COMMAND")
	b.fill(t, "#task-description", "Greet people")
	b.fill(t, "#task-config", `{"command": ["sh", "-c", `+js(reviewAgent)+`]}`)
	b.press(t, "task-start")
	b.waitFor(t, "the task page", `location.hash.startsWith('#/task/')`)
	id := strings.TrimPrefix(eval[string](t, b, `location.hash`), "#/task/")
	b.waitFor(t, "the task's page", onTask(id))
	b.waitFor(t, "the task waiting for review", `document.querySelector('#task-status .badge').textContent === 'waiting for review'`)

	// The diff: the tree with the file's counts, the code highlighted.
	b.click(t, "#tab-diff")
	row := func(n int) string { return `#task-diff .dl[data-file="app.go"][data-line="` + strconv.Itoa(n) + `"]` }
	b.waitFor(t, "the diff", `document.querySelector('`+row(5)+`') !== null`)
	if got := eval[string](t, b, `document.querySelector('#review-tree .tree-file[data-file="app.go"]').textContent`); !strings.Contains(got, "+4\u22121") {
		t.Errorf("the tree's entry for app.go: %q, want its 4 added lines and 1 removed", got)
	}
	if !eval[bool](t, b, `document.querySelector('`+row(4)+` .tk-kw') !== null && document.querySelector('`+row(5)+` .tk-str').textContent === '"hello, "'`) {
		t.Error("the diff is not highlighted: no keyword on line 4 or no string on line 5")
	}
	if eval[int](t, b, `document.querySelector('`+row(2)+`').tabIndex`) >= 0 {
		t.Error("the blank line 2 can be commented on: its anchor could never be found again")
	}

	comment := func(n int, text string) {
		t.Helper()
		b.click(t, row(n))
		b.waitFor(t, "the comment box", `document.activeElement && document.activeElement.id === 'diff-comment-text'`)
		b.key(t, text+kb.Enter)
		b.waitFor(t, "the comment under line "+strconv.Itoa(n), `document.querySelector('`+row(n)+` + .code-comment[data-state="open"]') !== null`)
	}
	comment(5, "call it greeting")
	comment(9, "why count?")
	b.waitFor(t, "both comments waiting in the send box", `document.getElementById('send-review').textContent === 'Send 2 comments and the follow-up'`)

	// Side by side, remembered when the page comes back.
	b.press(t, "view-split")
	b.waitFor(t, "the side-by-side diff", `document.querySelector('#task-diff .review-split .srow[data-line="5"] + .code-comment') !== null`)
	eval[string](t, b, `location.hash = '#/tasks'`)
	b.waitFor(t, "the task list", `document.getElementById('task-list') !== null`)
	eval[string](t, b, `location.hash = `+js("#/task/"+id))
	b.waitFor(t, "the task's page", onTask(id))
	b.click(t, "#tab-diff")
	b.waitFor(t, "the diff side by side again", `document.getElementById('view-split') !== null && document.getElementById('view-split').classList.contains('on') && document.querySelector('#task-diff .review-split') !== null`)

	// One box sends the comments and the follow-up together.
	b.fill(t, "#follow-up", "Also trim the greeting.")
	b.press(t, "send-review")
	b.press(t, "tab-log")
	b.waitFor(t, "the review reaching the agent", `Array.from(document.querySelectorAll('#task-log .log-line .text')).some(e => e.textContent.startsWith('asked: Review comments on your branch'))`)
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(time.Minute))
	defer cancel()
	if err := srv.Tasks.Wait(ctx, id); err != nil {
		t.Fatal(err)
	}
	task, err := srv.Tasks.Get(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	asked, _ := os.ReadFile(filepath.Join(task.WorktreePath, "asked.txt"))
	for _, want := range []string{"app.go:5\n> \tmsg := \"hello, \" + name\ncall it greeting", "app.go:9\n> func Count() int { return 42 }\nwhy count?", "Also trim the greeting."} {
		if !strings.Contains(string(asked), want) {
			t.Errorf("the agent was asked:\n%s\nwithout %q", asked, want)
		}
	}

	// The follow-up moved the first comment's line down by two and removed
	// the second's.
	b.click(t, "#tab-diff")
	b.waitFor(t, "the first comment at its new line, moved and sent",
		`(() => { const c = document.querySelector('#task-diff .review-split .srow[data-line="7"] + .code-comment[data-state="sent"]');
		return !!c && c.textContent.includes('app.go:7') && c.textContent.includes('moved from line 5') && c.textContent.includes('call it greeting') })()`)
	b.waitFor(t, "the second comment stale",
		`(() => { const c = document.querySelector('#task-diff .code-comment.stale'); return !!c && c.textContent.includes('func Count() int') && c.textContent.includes('why count?') })()`)
	b.waitFor(t, "nothing left to send but a follow-up", `document.getElementById('send-review').textContent === 'Send the follow-up'`)
	eval[bool](t, b, `(() => { document.getElementById('tab-diff').scrollIntoView(); return true })()`)
	b.screenshot(t, "task-review-split")

	// Unified again: the comments follow.
	b.press(t, "view-unified")
	b.waitFor(t, "the moved comment in the unified diff", `document.querySelector('`+row(7)+` + .code-comment[data-state="sent"]') !== null`)
	if errs := b.errors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}

// splitGeometry is where a side-by-side row's parts are drawn.
type splitGeometry struct {
	Clipped        []bool  // scrolled or cut: the line's side, its code, the diff
	Height, Single float64 // the long line's row, the one-line row after it
	LevelRows      []bool  // each row's two line numbers at the same height
	NextBelow      bool    // the next row under both sides of the long line
	Wide           bool    // the wrapped code beside its line number, not under it
}

// TestBrowserReviewSplitWraps: in the side-by-side diff a line longer than
// its side wraps within it, none of it cut off, and the two sides stay
// level: each row's line numbers side by side, the next row under the
// longer side.
func TestBrowserReviewSplitWraps(t *testing.T) {
	b, base, srv := reviewWorld(t)
	long := `return "hello, " + name + "` + strings.Repeat("and a greeting that goes on ", 12) + strings.Repeat("x", 160) + `"`
	script := "cat > app.go <<'EOF'\npackage app\n\n// Greet says hello.\nfunc Greet(name string) string {\n\t" + long + "\n}\nEOF\n" +
		"git add app.go; git -c user.name=t -c user.email=t@example.com commit -q -m long"
	cfg, _ := json.Marshal(map[string]any{"command": []string{"sh", "-c", script}})
	task, err := srv.Tasks.Create(context.Background(), orchestrator.CreateInput{Agent: "COMMAND", Description: "A long line", Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	b.do(t, chromedp.Navigate(base+"/?token="+srv.OpenToken+"#/task/"+task.ID))
	b.waitFor(t, "the task's page", onTask(task.ID))
	b.waitFor(t, "the task waiting for review", `document.querySelector('#task-status .badge').textContent === 'waiting for review'`)
	b.click(t, "#tab-diff")
	b.press(t, "view-split")
	row := `document.querySelector('#task-diff .review-split .srow[data-line="5"]')`
	b.waitFor(t, "the long line side by side", row+` !== null && `+row+`.querySelector('.side.add .code').textContent === `+js("\t"+long))

	// The long line is whole in its side: nothing hidden, several rows tall.
	got := eval[splitGeometry](t, b, `(() => {
		const row = `+row+`;
		const add = row.querySelector('.side.add'), code = add.querySelector('.code');
		const split = row.closest('.review-split');
		const next = row.nextElementSibling;
		const single = next.getBoundingClientRect().height;
		const top = (e) => e.getBoundingClientRect().top;
		return {
			Clipped: [add.scrollWidth > add.clientWidth, code.scrollWidth > code.clientWidth, split.scrollWidth > split.clientWidth],
			Height: row.getBoundingClientRect().height, Single: single,
			LevelRows: [...split.querySelectorAll('.srow:not(.hunk)')].map((r) => { const l = r.querySelectorAll('.ln'); return l.length === 2 && Math.abs(top(l[0]) - top(l[1])) < 1 }),
			NextBelow: top(next) >= Math.max(...[...row.querySelectorAll('.side')].map((s) => s.getBoundingClientRect().bottom)) - 1,
			Wide: code.getBoundingClientRect().left > add.querySelector('.ln').getBoundingClientRect().right - 1,
		};
	})()`)
	for i, c := range got.Clipped {
		if c {
			t.Errorf("the long line is cut or scrolls (%d of side, code, diff): %+v", i, got)
		}
	}
	if got.Height < 2*got.Single {
		t.Errorf("the long line does not wrap: its row is %.0f px tall, a line %.0f", got.Height, got.Single)
	}
	for i, ok := range got.LevelRows {
		if !ok {
			t.Errorf("row %d: its two line numbers are not level: %+v", i, got)
		}
	}
	if !got.NextBelow || !got.Wide {
		t.Errorf("the next row overlaps the wrapped line, or the wrapped text runs under the line numbers: %+v", got)
	}
	if errs := b.errors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}
