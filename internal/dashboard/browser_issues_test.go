package dashboard_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/sudocode/sudocode/internal/serve"
	"github.com/sudocode/sudocode/internal/testkit"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

// key presses keys on the focused element, as a user does.
func (b *browser) key(t *testing.T, keys string, opts ...chromedp.KeyOption) {
	t.Helper()
	b.do(t, chromedp.KeyEvent(keys, opts...))
}

// act runs steps on elements of the page, again if a live re-render
// replaced one between finding and using it.
func (b *browser) act(t *testing.T, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	var err error
	for try := range 12 {
		// Each try is bounded: a query waits for its element, which a
		// re-render may have taken away for good. The bound grows, so that
		// a machine too loaded to answer DevTools in 5 s still gets there.
		// A failed try is the re-render, already done: the next one starts
		// at once, on the new elements.
		ctx, cancel := context.WithTimeout(b.ctx, testkit.Scale(time.Duration(min(try+1, 4))*5*time.Second))
		err = chromedp.Do(ctx, steps...)
		cancel()
		if err == nil {
			return
		}
	}
	t.Fatal(err)
}

// click clicks the element sel selects, with DevTools' mouse.
// click clicks what sel selects as the page's own code sees a click (see
// press), once it is there: links and the rows of live views are redrawn
// by live events too, and a mouse click aimed at one just before a redraw
// was lost on a loaded machine (the issue link of a task just merged).
func (b *browser) click(t *testing.T, sel string) {
	t.Helper()
	b.waitFor(t, sel, `document.querySelector(`+js(sel)+`) !== null`)
	if !eval[bool](t, b, `(() => { const e = document.querySelector(`+js(sel)+`); if (!e) return false; e.click(); return true })()`) {
		t.Fatalf("%s went away before it was clicked", sel)
	}
}

// press clicks the button with this id as the page's own code sees a
// click (its click event, its default action: a form submitted),
// dispatched in the page once the button is there. Used for the buttons
// of views that live events redraw: DevTools' mouse click at the button's
// place was lost on a loaded CI machine when the button under the pointer
// was redrawn between the two, which no user sees.
func (b *browser) press(t *testing.T, id string) {
	t.Helper()
	b.waitFor(t, "the button "+id, `document.getElementById(`+js(id)+`) !== null`)
	if !eval[bool](t, b, `(() => { const e = document.getElementById(`+js(id)+`); if (!e) return false; e.click(); return true })()`) {
		t.Fatalf("the button %s went away before it was pressed", id)
	}
}

// fill sets the field sel selects to text as typing it would leave it —
// its value, then its input and change events (the page keeps a field so
// marked across its live re-renders) — in one step in the page. Keys
// sent one by one through DevTools can be split by a re-render on a
// loaded machine (some land in the old field, some in the new), and a
// retried step would type them twice.
func (b *browser) fill(t *testing.T, sel, text string) {
	t.Helper()
	b.waitFor(t, sel, `document.querySelector(`+js(sel)+`) !== null`)
	set := `(() => { const e = document.querySelector(` + js(sel) + `); if (!e) return false; e.value = ` + js(text) + `;
		e.dispatchEvent(new Event('input', { bubbles: true })); e.dispatchEvent(new Event('change', { bubbles: true })); return true })()`
	if !eval[bool](t, b, set) {
		t.Fatalf("%s went away before it was filled", sel)
	}
}

// TestBrowserReadOnlyWithoutToken: on a server without a token
// (--no-auth), a page opened without the write token shows no actions,
// says how to get write access, and `c` creates nothing.
func TestBrowserReadOnlyWithoutToken(t *testing.T) {
	b := newBrowser(t)
	f := newFixture(t)
	base, _ := startServeWith(t, f, serve.Options{NoAuth: true})
	b.do(t, chromedp.Navigate(base+"/"))
	b.waitFor(t, "the board", `document.querySelectorAll('#board .column').length === 4`)
	if !eval[bool](t, b, `!document.getElementById('access').hidden && document.getElementById('access').textContent.includes('?token=')`) {
		t.Error("the read-only page does not say how to get write access")
	}
	if eval[bool](t, b, `document.getElementById('new-issue') !== null || document.querySelector('.card[draggable="true"]') !== null`) {
		t.Error("the read-only page offers actions")
	}
	b.key(t, "c")
	b.waitFor(t, "the read-only notice", `document.querySelector('.toast.error') !== null`)
	if got := eval[string](t, b, `location.hash`); got == "#/new-issue" {
		t.Error("c opened the form on a read-only page")
	}
	b.screenshot(t, "read-only")
	if errs := b.errors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}

// TestBrowserIssueWork: with the token, through the page only: create an
// issue with the keyboard (markdown previewed), drag it to in progress,
// move it with the keyboard, close it with a reason, link and unlink,
// filter and search; each change is in the tracker as the CLI sees it.
func TestBrowserIssueWork(t *testing.T) {
	b := newBrowser(t)
	f := newFixture(t)
	base, srv := startServe(t, f)
	ctx := context.Background()
	b.do(t, chromedp.Navigate(base+"/?token="+srv.OpenToken))
	b.waitFor(t, "the writable board", `document.getElementById('new-issue') !== null && document.getElementById('access').hidden`)

	// c opens the form; the description's preview renders the markdown.
	b.key(t, "c")
	b.waitFor(t, "the new issue form", `document.activeElement && document.activeElement.id === 'issue-title'`)
	b.key(t, "Ship the board")
	b.do(t, chromedp.SendKeys("#issue-description", "Make it **fast**."),
		chromedp.SetValue("#issue-priority", "0"), chromedp.SetValue("#issue-type", "feature"),
		chromedp.SendKeys("#issue-tags", "web, ux"), chromedp.Click("#issue-description-show"))
	b.waitFor(t, "the preview", `document.querySelector('#issue-description-preview strong') !== null`)
	b.screenshot(t, "issue-form-preview")
	b.click(t, "#issue-save")
	b.waitFor(t, "the new issue's page", `document.querySelector('main h1') && document.querySelector('main h1').textContent === 'Ship the board'`)
	id := strings.TrimPrefix(eval[string](t, b, `location.hash`), "#/issue/")
	got, err := f.repo.ShowIssue(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if got.Priority != 0 || got.Type != "feature" || got.Description != "Make it **fast**." || strings.Join(got.Tags, ",") != "ux,web" {
		t.Errorf("the created issue: %+v", got.Issue)
	}

	// Drag the card to in progress.
	card := `document.getElementById('card-` + id + `')`
	b.do(t, chromedp.Navigate(base+"/#/board"))
	b.waitFor(t, "the card in open", card+` !== null && `+card+`.closest('.column').dataset.status === 'open'`)
	b.act(t, chromedp.DragAndDrop(chromedp.CSS("#card-"+id), chromedp.CSS(`.column[data-status="in_progress"] h2`)))
	b.waitFor(t, "the card in in_progress", card+` !== null && `+card+`.closest('.column').dataset.status === 'in_progress'`)
	if st := status(t, f, id); st != "in_progress" {
		t.Errorf("after the drag the issue is %s", st)
	}

	// The keyboard: focus the card, Shift+→ twice: blocked, then closed,
	// which asks for a reason.
	b.act(t, chromedp.Focus("#card-"+id))
	b.key(t, kb.ArrowRight, chromedp.KeyModifiers(chromedp.ModifierShift))
	b.waitFor(t, "the card in blocked", card+` !== null && `+card+`.closest('.column').dataset.status === 'blocked'`)
	b.waitFor(t, "the focus kept on the card", `document.activeElement === `+card)
	b.key(t, kb.ArrowRight, chromedp.KeyModifiers(chromedp.ModifierShift))
	b.waitFor(t, "the close dialog", `document.activeElement && document.activeElement.id === 'close-reason'`)
	b.key(t, "shipped in the board work"+kb.Enter)
	b.waitFor(t, "the card in closed", card+` !== null && `+card+`.closest('.column').dataset.status === 'closed'`)
	if closed, _ := f.repo.ShowIssue(ctx, id); closed.CloseReason == nil || *closed.CloseReason != "shipped in the board work" {
		t.Errorf("the close reason: %v", closed.CloseReason)
	}

	// Link the in-progress issue to the ready one, then unlink it.
	b.do(t, chromedp.Navigate(base+"/#/issue/"+f.progress))
	b.waitFor(t, "the link form", `document.getElementById('link-form') !== null`)
	b.act(t, chromedp.SetValue("#link-type", "related"), chromedp.SendKeys("#link-to", f.open+kb.Enter))
	rel := `document.querySelector('[data-rel=` + js(f.progress+" related "+f.open) + `] button.unlink')`
	b.waitFor(t, "the new link", rel+` !== null`)
	if d, _ := f.repo.ShowIssue(ctx, f.progress); len(d.Relationships.Outgoing) != 1 {
		t.Errorf("links after linking: %+v", d.Relationships.Outgoing)
	}
	b.click(t, `[data-rel="`+f.progress+` related `+f.open+`"] button.unlink`)
	b.waitFor(t, "the link gone", rel+` === null`)

	// Filters and search: / focuses the filter; the board narrows live.
	b.do(t, chromedp.Navigate(base+"/#/board"))
	b.waitFor(t, "the board", `document.getElementById('filter-text') !== null`)
	b.do(t, chromedp.Click("body"))
	b.key(t, "/")
	b.waitFor(t, "the filter focused", `document.activeElement && document.activeElement.id === 'filter-text'`)
	b.key(t, "token")
	b.waitFor(t, "the board narrowed", `document.querySelectorAll('#board .card').length === 1 && document.querySelector('#board .card').dataset.id === `+js(f.open))
	b.waitFor(t, "the focus kept in the filter", `document.activeElement && document.activeElement.id === 'filter-text'`)
	b.screenshot(t, "board-filtered")
	b.key(t, kb.Enter)
	b.waitFor(t, "the search results", `document.querySelector('#search-results .search-hit') !== null`)
	// j then Enter opens the first hit, once the filter lets go of the
	// keys (blurred in the page: the heading a click would aim at may be
	// drawn again under it).
	if _, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`document.activeElement && document.activeElement.blur(), true`)); err != nil {
		t.Fatal(err)
	}
	b.key(t, "j")
	b.waitFor(t, "the first hit focused", `document.activeElement && document.activeElement.classList.contains('search-hit')`)
	b.key(t, kb.Enter)
	b.waitFor(t, "the hit's issue", `location.hash === `+js("#/issue/"+f.open))

	b.settle(t)
	if errs := b.errors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}

func status(t *testing.T, f *fixture, id string) string {
	t.Helper()
	d, err := f.repo.ShowIssue(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return string(d.Status)
}

// TestBrowserForeignPageCannotWrite: a page from another local origin, in
// the browser that holds the dashboard's cookie, tries to create an issue
// (a simple request, which needs no preflight, and a JSON one); neither is
// saved.
func TestBrowserForeignPageCannotWrite(t *testing.T) {
	b := newBrowser(t)
	f := newFixture(t)
	base, srv := startServe(t, f)
	b.do(t, chromedp.Navigate(base+"/?token="+srv.OpenToken))
	b.waitFor(t, "the writable board", `document.getElementById('new-issue') !== null`)
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<!doctype html><title>evil</title><script>
const body = JSON.stringify({title: 'Planted'});
window.done = Promise.allSettled([
  fetch(%[1]q, {method: 'POST', mode: 'no-cors', credentials: 'include', headers: {'Content-Type': 'text/plain'}, body}),
  fetch(%[1]q, {method: 'POST', credentials: 'include', headers: {'Content-Type': 'application/json'}, body}),
]);
</script>`, base+"/api/issues")
	}))
	defer evil.Close()
	b.do(t, chromedp.Navigate(evil.URL))
	// The attempts are over when the page's promise of them settles.
	if _, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`window.done.then(() => true)`, chromedp.EvalAwaitPromise)); err != nil {
		t.Fatalf("waiting for the foreign page's attempts: %v", err)
	}
	list, err := f.repo.ListIssues(context.Background(), store.IssueFilter{Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range list.Issues {
		if it.Title == "Planted" {
			t.Fatal("a foreign page created an issue with the dashboard's cookie")
		}
	}
}

// TestBrowserKeyboardWalk: the main flow with the keyboard alone — create
// an issue, edit it, filter the board to it, move it, open it.
func TestBrowserKeyboardWalk(t *testing.T) {
	b := newBrowser(t)
	f := newFixture(t)
	base, srv := startServe(t, f)
	b.do(t, chromedp.Navigate(base+"/?token="+srv.OpenToken))
	b.waitFor(t, "the writable board", `document.getElementById('new-issue') !== null`)
	b.key(t, "c")
	b.waitFor(t, "the form", `document.activeElement && document.activeElement.id === 'issue-title'`)
	b.key(t, "Walk the board"+kb.Enter)
	b.waitFor(t, "the issue", `location.hash.startsWith('#/issue/') && document.querySelector('main h1').textContent === 'Walk the board'`)
	id := strings.TrimPrefix(eval[string](t, b, `location.hash`), "#/issue/")
	b.key(t, "e")
	b.waitFor(t, "the edit form", `document.activeElement && document.activeElement.id === 'issue-title'`)
	b.key(t, kb.End+" end to end"+kb.Enter)
	b.waitFor(t, "the edited issue", `location.hash === `+js("#/issue/"+id)+` && document.querySelector('main h1').textContent === 'Walk the board end to end'`)
	if d, _ := f.repo.ShowIssue(context.Background(), id); d.Title != "Walk the board end to end" {
		t.Errorf("the title in the tracker: %q", d.Title)
	}
	b.key(t, "/")
	b.waitFor(t, "the filter", `document.activeElement && document.activeElement.id === 'filter-text'`)
	b.key(t, "walk")
	b.waitFor(t, "the board narrowed", `document.querySelectorAll('#board .card').length === 1`)
	b.key(t, kb.Escape)
	b.key(t, "j")
	b.waitFor(t, "the card focused", `document.activeElement && document.activeElement.id === 'card-`+id+`'`)
	b.key(t, kb.ArrowRight, chromedp.KeyModifiers(chromedp.ModifierShift))
	b.waitFor(t, "the card in progress", `(() => { const c = document.getElementById('card-`+id+`'); return !!c && c.closest('.column').dataset.status === 'in_progress' && document.activeElement === c })()`)
	b.key(t, kb.Enter)
	b.waitFor(t, "the issue opened", `location.hash === `+js("#/issue/"+id))
	if st := status(t, f, id); st != "in_progress" {
		t.Errorf("the status in the tracker: %s", st)
	}
	if errs := b.errors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}
