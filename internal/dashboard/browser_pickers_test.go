package dashboard_test

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// TestBrowserPickersIssueForm: in the issue form the assignee is picked
// among the names already used (or typed new), the parent by its title,
// with the keyboard only (↓, Enter; Esc closes a list and keeps the
// form); the estimate is the tracker's, in minutes.
func TestBrowserPickersIssueForm(t *testing.T) {
	b := newBrowser(t)
	f := overviewFixture(t) // ana and bob are assignees
	base, srv := startServe(t, f)
	ctx := context.Background()
	b.do(t, chromedp.Navigate(base+"/?token="+srv.OpenToken+"#/new-issue"))
	b.waitFor(t, "the form", `document.activeElement && document.activeElement.id === 'issue-title'`)
	b.key(t, "Rotate the refresh tokens")

	options := func(list string) string {
		return `[...document.querySelectorAll('#` + list + ` [role=option] .label')].map((o) => o.textContent).join(', ')`
	}
	// The names used, the most used first, as soon as the field is entered.
	b.act(t, chromedp.Focus("#issue-assignee"))
	b.waitFor(t, "the assignees offered", options("issue-assignee-options")+` === 'ana, bob' && document.getElementById('issue-assignee').getAttribute('aria-expanded') === 'true'`)
	b.key(t, "b")
	b.waitFor(t, "bob, and b as a new name", options("issue-assignee-options")+` === 'bob, b'`)
	b.key(t, kb.ArrowDown)
	b.waitFor(t, "bob highlighted", `document.querySelector('#issue-assignee-options [aria-selected=true]').dataset.value === 'bob'`)
	b.key(t, kb.Enter)
	b.waitFor(t, "bob picked", `document.getElementById('issue-assignee').value === 'bob' && document.getElementById('issue-assignee-options').hidden && location.hash === '#/new-issue'`)

	// The parent by its title; the list shows what was found.
	b.act(t, chromedp.Focus("#issue-parent"))
	b.key(t, "token")
	b.waitFor(t, "the parent offered", options("issue-parent-options")+` === 'Design the token store'`)
	b.screenshot(t, "issue-form")
	b.key(t, kb.ArrowDown)
	b.key(t, kb.Enter)
	b.waitFor(t, "the parent picked", `document.getElementById('issue-parent').value === `+js(f.open)+` && document.getElementById('issue-parent-picked').textContent === 'Design the token store'`)

	// Esc closes an open list and nothing else.
	b.act(t, chromedp.Focus("#issue-assignee"))
	b.waitFor(t, "the list open again", `!document.getElementById('issue-assignee-options').hidden`)
	b.key(t, kb.Escape)
	b.waitFor(t, "the list closed, the form kept", `document.getElementById('issue-assignee-options').hidden && document.activeElement.id === 'issue-assignee' && location.hash === '#/new-issue'`)

	b.act(t, chromedp.SendKeys("#issue-estimate", "90"))
	b.click(t, "#issue-save")
	b.waitFor(t, "the new issue's page", `document.querySelector('main h1') && document.querySelector('main h1').textContent === 'Rotate the refresh tokens'`)
	b.waitFor(t, "its estimate shown", `document.getElementById('issue-estimate-shown').textContent === '90 min'`)
	id := strings.TrimPrefix(eval[string](t, b, `location.hash`), "#/issue/")
	got, err := f.repo.ShowIssue(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if got.Assignee == nil || *got.Assignee != "bob" || got.ParentID == nil || *got.ParentID != f.open || got.Estimate == nil || *got.Estimate != 90 {
		t.Errorf("the created issue: assignee %v, parent %v, estimate %v", got.Assignee, got.ParentID, got.Estimate)
	}
	if errs := b.errors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}

// TestBrowserPickersLink: the link form finds its target by title (issues
// and specs, not the issue itself); an id typed whole still links.
func TestBrowserPickersLink(t *testing.T) {
	b := newBrowser(t)
	f := newFixture(t)
	base, srv := startServe(t, f)
	ctx := context.Background()
	b.do(t, chromedp.Navigate(base+"/?token="+srv.OpenToken+"#/issue/"+f.progress))
	b.waitFor(t, "the link form", `document.getElementById('link-form') !== null`)
	b.act(t, chromedp.SetValue("#link-type", "related"), chromedp.Focus("#link-to"))
	b.key(t, "login")
	hits := `[...document.querySelectorAll('#link-to-options [role=option]')].map((o) => o.dataset.value)`
	b.waitFor(t, "issues and the spec found by title", hits+`.includes(`+js(f.waiting)+`) && `+hits+`.includes(`+js(f.spec)+`)`)
	b.key(t, kb.Escape)
	b.waitFor(t, "the list closed", `document.getElementById('link-to-options').hidden`)
	eval[bool](t, b, `(document.getElementById('link-to').value = '', true)`)
	b.key(t, "token")
	b.waitFor(t, "the blocker found first (by its title)", hits+`[0] === `+js(f.open))
	b.key(t, kb.ArrowDown)
	b.key(t, kb.Enter)
	b.waitFor(t, "picked", `document.getElementById('link-to').value === `+js(f.open))
	b.key(t, kb.Enter) // nothing highlighted: the form is sent
	b.waitFor(t, "the link", `document.querySelector('[data-rel=`+js(f.progress+" related "+f.open)+`]') !== null`)

	// An id typed whole, as before the picker.
	b.act(t, chromedp.SetValue("#link-type", "related"), chromedp.SendKeys("#link-to", f.waiting+kb.Enter))
	b.waitFor(t, "the link by id", `document.querySelector('[data-rel=`+js(f.progress+" related "+f.waiting)+`]') !== null`)
	if d, _ := f.repo.ShowIssue(ctx, f.progress); len(d.Relationships.Outgoing) != 2 {
		t.Errorf("links: %+v", d.Relationships.Outgoing)
	}
	if errs := b.errors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}

// TestBrowserPickersFilter: the filter bar's assignee is picked as in the
// issue form (the names in use, the most used first; ↓, Enter); the name
// picked filters the board as typing it does, and the list stays closed
// over the re-render that shows it.
func TestBrowserPickersFilter(t *testing.T) {
	b := newBrowser(t)
	f := overviewFixture(t) // ana (2 issues) and bob (1)
	base, srv := startServe(t, f)
	b.do(t, chromedp.Navigate(base+"/?token="+srv.OpenToken))
	counts := `[...document.querySelectorAll('#board .column')].map((c) => c.dataset.status + ' ' + c.querySelector('.count').textContent).join(', ')`
	b.waitFor(t, "the board", counts+` === 'open 3, in_progress 1, blocked 1, closed 1'`)
	b.settle(t)

	options := `[...document.querySelectorAll('#filter-assignee-options [role=option] .label')].map((o) => o.textContent).join(', ')`
	open := `!document.getElementById('filter-assignee-options').hidden && document.activeElement.id === 'filter-assignee'`
	b.act(t, chromedp.Focus("#filter-assignee"))
	b.waitFor(t, "the assignees offered", `document.getElementById('filter-assignee-options') !== null && `+options+` === 'ana, bob' && `+open)
	// Typing filters at once (no issue is assigned to "b"), and the list,
	// in the field the filter's re-render put back, offers bob alone: no
	// new name in a filter.
	b.key(t, "b")
	b.waitFor(t, "the board filtered by what is typed, bob offered", counts+` === 'open 0, in_progress 0, blocked 0, closed 0' && `+options+` === 'bob' && `+open)
	b.key(t, kb.ArrowDown)
	b.waitFor(t, "bob highlighted", `document.querySelector('#filter-assignee-options [aria-selected=true]').dataset.value === 'bob'`)
	b.key(t, kb.Enter)
	b.waitFor(t, "the board filtered by bob", counts+` === 'open 1, in_progress 0, blocked 0, closed 0' && document.getElementById('filter-assignee').value === 'bob' && document.getElementById('filters-active') !== null`)
	b.settle(t)
	if !eval[bool](t, b, `document.getElementById('filter-assignee-options').hidden && document.activeElement.id === 'filter-assignee'`) {
		t.Error("the list opened again after the pick, or the field lost the focus")
	}
	if got := eval[string](t, b, `[...document.querySelectorAll('#board .card .assignee')].map((a) => a.textContent).join(', ')`); got != "@bob" {
		t.Errorf("the cards filtered by bob: %q", got)
	}

	// Esc closes the list first, then leaves the field, the filter kept.
	b.key(t, kb.ArrowDown)
	b.waitFor(t, "the list open again", open)
	b.key(t, kb.Escape)
	b.waitFor(t, "the list closed, the field kept", `document.getElementById('filter-assignee-options').hidden && document.activeElement.id === 'filter-assignee'`)
	b.key(t, kb.Escape)
	b.waitFor(t, "the field left, the filter kept", `document.activeElement.id !== 'filter-assignee' && document.getElementById('filter-assignee').value === 'bob'`)
	if errs := b.errors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}
