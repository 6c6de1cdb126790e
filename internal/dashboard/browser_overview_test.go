package dashboard_test

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/sudocode/sudocode/internal/tracker/store"
)

// overviewFixture adds to the fixture issues assigned to two people and a
// closed one: ana has two (one closed), bob one.
func overviewFixture(t *testing.T) *fixture {
	t.Helper()
	f := newFixture(t)
	ctx := context.Background()
	ana, bob, p0 := "ana", "bob", 0
	for _, in := range []store.IssueInput{
		{Title: "Audit the session cookies", Assignee: &ana, Priority: &p0},
		{Title: "Migrate the user table", Assignee: &bob},
		{Title: "Remove the old login page", Assignee: &ana},
	} {
		if _, err := f.repo.CreateIssue(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	l, err := f.repo.ListIssues(ctx, store.IssueFilter{Assignee: "ana", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range l.Issues {
		if strings.HasPrefix(it.Title, "Remove") {
			if _, err := f.repo.CloseIssues(ctx, []string{it.ID}, "done"); err != nil {
				t.Fatal(err)
			}
		}
	}
	return f
}

// TestBrowserOverviewTable: the issues shown as a table beside the board
// (the choice kept over a reload), sorted by a click on a column's header
// (again: the other way), grouped by status with each group's size.
func TestBrowserOverviewTable(t *testing.T) {
	b := newBrowser(t)
	f := overviewFixture(t)
	base, srv := startServe(t, f)
	b.do(t, chromedp.Navigate(base+"/?token="+srv.OpenToken))
	b.waitFor(t, "the board", `document.getElementById('board') !== null`)
	b.click(t, "#view-table")
	rows := `[...document.querySelectorAll('#issue-table tr.issue-row')]`
	b.waitFor(t, "the table", rows+`.length === 6`)

	titles := rows + `.map((r) => r.querySelector('.col-title').textContent)`
	b.click(t, "#sort-title")
	b.waitFor(t, "sorted by title", `document.querySelector('th.col-title').getAttribute('aria-sort') === 'ascending'`)
	got := eval[[]string](t, b, titles)
	if !sortedFold(got) || len(got) != 6 {
		t.Errorf("by title: %q", got)
	}
	b.click(t, "#sort-title")
	b.waitFor(t, "sorted by title the other way", `document.querySelector('th.col-title').getAttribute('aria-sort') === 'descending'`)
	if got := eval[[]string](t, b, titles); got[0] != "Write <script>alert(1)</script> docs" {
		t.Errorf("by title, descending: %q", got)
	}

	// Grouped by status: the board's columns in its order, each sized.
	b.do(t, chromedp.SetValue("#table-group", "status"))
	eval[bool](t, b, `document.getElementById('table-group').dispatchEvent(new Event('change', { bubbles: true }))`)
	groups := `[...document.querySelectorAll('#issue-table tr.group-row')].map((g) => g.dataset.group + ' ' + g.querySelector('.count').textContent).join(', ')`
	b.waitFor(t, "the groups", groups+` === 'open 3, in_progress 1, blocked 1, closed 1'`)

	// A reload keeps the table, its order and its groups.
	b.do(t, chromedp.Reload())
	b.waitFor(t, "the table again", rows+`.length === 6 && document.querySelectorAll('#issue-table tr.group-row').length === 4`)
	if got := eval[string](t, b, `document.querySelector('th.col-title').getAttribute('aria-sort')`); got != "descending" {
		t.Errorf("after a reload the title column is sorted %q", got)
	}
	b.screenshot(t, "issues-table")

	// j and k walk the rows; Enter opens one.
	b.do(t, chromedp.Click("h1"))
	b.key(t, "j")
	b.key(t, "j")
	second := eval[string](t, b, rows+`[1].dataset.id`)
	b.waitFor(t, "the second row in focus", `document.activeElement === document.querySelector('#issue-table tr.issue-row[data-id=`+js(second)+`] a.id')`)
	b.key(t, kb.Enter)
	b.waitFor(t, "its page", `location.hash === '#/issue/`+second+`'`)
	if errs := b.errors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}

// TestBrowserOverviewFilterAndColumns: a filter narrows the table and the
// board's column counts alike and says it is active on both; leaving the
// issues clears it; the closed column folds and stays folded.
func TestBrowserOverviewFilterAndColumns(t *testing.T) {
	b := newBrowser(t)
	f := overviewFixture(t)
	base, srv := startServe(t, f)
	b.do(t, chromedp.Navigate(base+"/?token="+srv.OpenToken))
	b.waitFor(t, "the board", `document.getElementById('board') !== null`)
	counts := `[...document.querySelectorAll('#board .column')].map((c) => c.dataset.status + ' ' + c.querySelector('.count').textContent).join(', ')`
	b.waitFor(t, "all counted", counts+` === 'open 3, in_progress 1, blocked 1, closed 1'`)

	b.act(t, chromedp.SendKeys("#filter-assignee", "ana"))
	b.waitFor(t, "the counts narrowed", counts+` === 'open 1, in_progress 0, blocked 0, closed 1'`)
	b.waitFor(t, "the filter said active", `document.getElementById('filters-active') !== null`)

	// The table: the same filter, shown active.
	b.click(t, "#view-table")
	b.waitFor(t, "the table narrowed", `document.querySelectorAll('#issue-table tr.issue-row').length === 2 && document.getElementById('filter-assignee').value === 'ana' && document.getElementById('filters-active') !== null`)
	b.click(t, "#view-board")
	b.waitFor(t, "the board, still narrowed", counts+` === 'open 1, in_progress 0, blocked 0, closed 1'`)

	// Another view, then back: the filter is gone, not hidden.
	b.do(t, chromedp.Navigate(base+"/#/specs"))
	b.waitFor(t, "the specs", `document.body.dataset.view === 'specs'`)
	b.do(t, chromedp.Navigate(base+"/#/board"))
	b.waitFor(t, "the board unfiltered", counts+` === 'open 3, in_progress 1, blocked 1, closed 1' && document.getElementById('filter-assignee').value === '' && document.getElementById('filters-active') === null`)

	// The closed column folds, keeps its count, and stays folded.
	closed := `document.querySelector('#board .column[data-status="closed"]')`
	b.click(t, "#toggle-closed")
	b.waitFor(t, "the closed column folded", closed+`.classList.contains('collapsed') && `+closed+`.querySelector('.cards').offsetParent === null`)
	if w := eval[float64](t, b, closed+`.getBoundingClientRect().width`); w > 60 {
		t.Errorf("the folded column is %.0f px wide", w)
	}
	b.do(t, chromedp.Reload())
	b.waitFor(t, "still folded after a reload", closed+` !== null && `+closed+`.classList.contains('collapsed') && `+closed+`.querySelector('.count').textContent === '1'`)
	b.screenshot(t, "board-closed-collapsed")
	// j and k walk the cards shown, not those of the folded column: k
	// from nowhere takes the last card shown.
	b.do(t, chromedp.Click("h1"))
	b.key(t, "k")
	if got := eval[string](t, b, `document.activeElement.closest('.column') ? document.activeElement.closest('.column').dataset.status : ''`); got != "blocked" {
		t.Errorf("k took the focus to the %q column; want the last shown, blocked", got)
	}
	b.click(t, "#toggle-closed")
	b.waitFor(t, "unfolded", `!`+closed+`.classList.contains('collapsed') && `+closed+`.querySelector('.card') && `+closed+`.querySelector('.card').offsetParent !== null`)
	if errs := b.errors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}

// sortedFold says whether s is in order, ignoring case.
func sortedFold(s []string) bool {
	for i := 1; i < len(s); i++ {
		if strings.ToLower(s[i-1]) > strings.ToLower(s[i]) {
			return false
		}
	}
	return true
}
