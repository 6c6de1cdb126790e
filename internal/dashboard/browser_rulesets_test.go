package dashboard_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/sudocode/sudocode/internal/rulesets"
)

// TestBrowserRulesetWork: through the page only, create a ruleset (its
// markdown previewed), edit it, compare two versions, and delete it.
func TestBrowserRulesetWork(t *testing.T) {
	b := newBrowser(t)
	f := newFixture(t)
	base, srv := startServe(t, f)
	lib := rulesets.Library{Store: f.rules}
	b.do(t, chromedp.Navigate(base+"/?token="+srv.OpenToken)) // sets the cookie, then redirects to /
	b.do(t, chromedp.Navigate(base+"/#/rulesets"))
	b.waitFor(t, "the library", `document.getElementById('new-ruleset') !== null`)
	b.click(t, "#new-ruleset")
	b.waitFor(t, "the form", `document.activeElement && document.activeElement.id === 'ruleset-name'`)
	b.key(t, "sql_style")
	b.act(t, chromedp.SendKeys("#ruleset-description", "How we write SQL"), chromedp.SendKeys("#ruleset-tags", "sql, db"),
		chromedp.SendKeys("#ruleset-markdown", "# SQL\n\n- Use **CTEs**.\n"))
	b.click(t, "#ruleset-markdown-show")
	b.waitFor(t, "the preview", `document.querySelector('#ruleset-markdown-preview strong') !== null`)
	b.screenshot(t, "ruleset-form")
	b.click(t, "#ruleset-save")
	b.waitFor(t, "the ruleset", `location.hash === '#/ruleset/sql_style' && document.querySelector('.ruleset-body h1') !== null`)
	got, err := lib.Get(context.Background(), "sql_style")
	if err != nil || got.Description != "How we write SQL" || strings.Join(got.Tags, ",") != "sql,db" {
		t.Fatalf("the created ruleset: %+v %v", got, err)
	}

	// e edits; the new line shows in the diff of version 1 with the current.
	b.act(t, chromedp.Click("main h1"))
	b.key(t, "e")
	b.waitFor(t, "the editor", `document.activeElement && document.activeElement.id === 'ruleset-markdown'`)
	b.key(t, kb.End, chromedp.KeyModifiers(chromedp.ModifierCtrl))
	b.key(t, "- Name every column."+kb.Enter)
	b.click(t, "#ruleset-save")
	b.waitFor(t, "two versions", `document.querySelectorAll('#ruleset-history tr[data-version="2"]').length === 1`)
	// The form sends every field; the history names the one that changed.
	b.waitFor(t, "the edit's change", `document.querySelector('#ruleset-history tr[data-version="2"]').textContent.includes('updated (markdown)')`)
	// Saved again as it is, the ruleset gets no new version.
	b.key(t, "e")
	b.waitFor(t, "the editor again", `document.activeElement && document.activeElement.id === 'ruleset-markdown'`)
	b.click(t, "#ruleset-save")
	b.waitFor(t, "the ruleset after saving", `document.getElementById('ruleset-form') === null && document.querySelector('#ruleset-history tr[data-version="2"]') !== null`)
	if h, err := lib.History(context.Background(), "sql_style", 10); err != nil || len(h) != 2 {
		t.Fatalf("history after a save that changed nothing: %d changes, %v; want 2", len(h), err)
	}
	b.act(t, chromedp.SetValue("#diff-from", "1"), chromedp.SetValue("#diff-to", "0"))
	b.click(t, "#show-diff")
	b.waitFor(t, "the diff", `document.querySelector('#ruleset-diff pre.diff .dl.add') !== null && document.querySelector('#ruleset-diff pre.diff').textContent.includes('+- Name every column.')`)
	b.screenshot(t, "ruleset-history")

	// Delete, confirming with the name.
	b.click(t, "#delete-ruleset")
	b.waitFor(t, "the confirmation", `document.activeElement && document.activeElement.id === 'ask-input'`)
	b.key(t, "sql_style"+kb.Enter)
	b.waitFor(t, "the library again", `location.hash === '#/rulesets' && document.querySelector('.ruleset-card[data-name="sql_style"]') === null`)
	if _, err := lib.Get(context.Background(), "sql_style"); err == nil {
		t.Error("the ruleset is still in the library")
	}
	b.settle(t)
	// A live refresh of the ruleset's own page that began before the
	// delete may read it after it is gone: the browser logs that 404, and
	// the page drops the render (a newer one, of the library, started).
	gone := func(e string) bool {
		return strings.Contains(e, "404") && strings.HasSuffix(e, "/api/rulesets/sql_style")
	}
	if errs := slices.DeleteFunc(b.errors(), gone); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}
