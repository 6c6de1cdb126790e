package dashboard_test

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserIssueActivity: on an issue's page, through the page only:
// the history the fixture made is shown; a comment written in the box
// appears rendered (its markdown as elements, its HTML as text) and is in
// the tracker; a status change made on the page appears in the history; a
// comment made elsewhere appears without a reload.
func TestBrowserIssueActivity(t *testing.T) {
	b := newBrowser(t)
	f := newFixture(t)
	base, srv := startServe(t, f)
	b.do(t, chromedp.Navigate(base+"/?token="+srv.OpenToken))
	b.waitFor(t, "the writable board", `document.getElementById('new-issue') !== null && document.getElementById('access').hidden`)
	b.do(t, chromedp.Navigate(base+"/#/issue/"+f.progress))
	b.waitFor(t, "the activity with the fixture's status change",
		`[...document.querySelectorAll('#activity-list li.event[data-field="status"]')].some((e) => e.textContent.includes('from open to in progress'))`)
	b.settle(t)

	// A comment written elsewhere (the CLI, an agent's MCP call), which
	// changes no record file, shows up on the open page.
	if _, err := f.repo.AddComment(context.Background(), f.progress, "From the *CLI*."); err != nil {
		t.Fatal(err)
	}
	b.waitFor(t, "the comment made elsewhere", `[...document.querySelectorAll('#activity-list li.comment .comment-text em')].some((e) => e.textContent === 'CLI')`)

	body := "Looks **good**. <img src=x onerror=\"document.body.dataset.owned=1\">"
	b.fill(t, "#comment-body", body)
	b.press(t, "comment-save")
	comment := `(document.querySelectorAll('#activity-list li.comment .comment-text')[1] || null)` // after the CLI's
	b.waitFor(t, "the comment rendered", comment+` !== null && `+comment+`.querySelector('strong') !== null && `+
		comment+`.querySelector('strong').textContent === 'good'`)
	if !eval[bool](t, b, comment+`.textContent.includes('<img src=x') && document.querySelector('#activity img') === null && !document.body.dataset.owned`) {
		t.Error("the comment's HTML was not kept as text")
	}
	b.waitFor(t, "the box emptied", `document.getElementById('comment-body') !== null && document.getElementById('comment-body').value === ''`)
	d, err := f.repo.ShowIssue(context.Background(), f.progress)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Comments) != 2 || d.Comments[1].Body != body {
		t.Errorf("the comments in the tracker: %+v", d.Comments)
	}

	// A status change on the page: its history line appears, after the
	// comment.
	b.fill(t, "#issue-status", "blocked")
	last := `document.querySelector('#activity-list li:last-child')`
	b.waitFor(t, "the status change in the history", last+` !== null && `+last+`.dataset.field === 'status' && `+
		last+`.textContent.includes('from in progress to blocked')`)
	if st := status(t, f, f.progress); st != "blocked" {
		t.Errorf("the status in the tracker: %s", st)
	}
	eval[bool](t, b, `(document.getElementById('activity').scrollIntoView(), true)`)
	b.screenshot(t, "issue-activity")

	// An empty comment is refused with the tracker's words.
	b.fill(t, "#comment-body", "   ")
	b.press(t, "comment-save")
	b.waitFor(t, "the refusal", `document.querySelector('.toast.error') !== null && document.querySelector('.toast.error').textContent.includes('must not be empty')`)
	b.settle(t)
	if errs := b.errors(); len(errs) > 0 && !onlyRefusals(errs) {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}

// onlyRefusals reports console errors that are all the browser's note of
// the refused request (a 400 answer).
func onlyRefusals(errs []string) bool {
	for _, e := range errs {
		if !strings.Contains(e, "400") {
			return false
		}
	}
	return true
}
