package dashboard_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/sudocode/sudocode/internal/rulesets/sqlitestore"
	"github.com/sudocode/sudocode/internal/testkit"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

// longFixture is a project whose ids are as long as the tracker allows
// (a prefix of 20 letters) with an issue assigned to a long address and
// described in markdown.
func longFixture(t *testing.T) (*fixture, string) {
	t.Helper()
	ctx := context.Background()
	dir := testkit.Repo(t)
	if _, err := store.Init(dir, "workbenchdashboardxy"); err != nil {
		t.Fatal(err)
	}
	repo, err := store.Open(ctx, filepath.Join(dir, store.DirName), "tester")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { repo.Close() })
	rs, err := sqlitestore.Open(ctx, filepath.Join(t.TempDir(), "rulesets"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rs.Close() })
	who := "maria.fernanda.rodriguez-villanueva@platform-engineering.example.com"
	it, err := repo.CreateIssue(ctx, store.IssueInput{Title: "Rotate the signing keys", Assignee: &who,
		Description: "## Plan\n\nMake **tokens** rotate with `rotate()` and _care_.\n\n- one\n- two"})
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{dir: dir, repo: repo, rules: rs}, it.ID
}

// TestBrowserPolishCards: at 1400 px wide a card with a long id and a long
// assignee stays in its column (no horizontal scrollbar, on the board or
// the table), the assignee cut there but whole in its tooltip, and its
// description reads as plain text, not markdown.
func TestBrowserPolishCards(t *testing.T) {
	b := newBrowser(t)
	f, id := longFixture(t)
	base, srv := startServe(t, f)
	b.do(t, chromedp.EmulateViewport(1400, 800))
	defer b.do(t, chromedp.EmulateViewport(viewW, viewH))
	b.do(t, chromedp.Navigate(base+"/?token="+srv.OpenToken))
	card := `document.getElementById('card-` + id + `')`
	b.waitFor(t, "the card", card+` !== null`)
	noScroll := `document.documentElement.scrollWidth <= document.documentElement.clientWidth`
	if !eval[bool](t, b, noScroll) {
		t.Errorf("the board scrolls sideways: %v px wide in 1400", eval[float64](t, b, `document.documentElement.scrollWidth`))
	}
	if !eval[bool](t, b, card+`.scrollWidth <= `+card+`.clientWidth && `+card+`.getBoundingClientRect().right <= `+card+`.closest('.column').getBoundingClientRect().right`) {
		t.Errorf("the card overflows: %s", eval[string](t, b, `JSON.stringify([`+card+`.scrollWidth, `+card+`.clientWidth])`))
	}
	// The assignee is cut on the card; its tooltip gives it whole.
	who := card + `.querySelector('.card-top .assignee')`
	if !eval[bool](t, b, who+`.scrollWidth > `+who+`.clientWidth`) {
		t.Errorf("the long assignee is not cut: %s", eval[string](t, b, `JSON.stringify([`+who+`.scrollWidth, `+who+`.clientWidth])`))
	}
	if title := eval[string](t, b, who+`.title`); !strings.Contains(title, "maria.fernanda.rodriguez-villanueva@platform-engineering.example.com") {
		t.Errorf("the cut assignee's tooltip is %q, not the full name", title)
	}
	desc := eval[string](t, b, card+`.querySelector('.card-desc').textContent`)
	if desc != "Plan Make tokens rotate with rotate() and care. one two" {
		t.Errorf("the card's description reads %q", desc)
	}
	for _, raw := range []string{"**", "#", "`", "_care_"} {
		if strings.Contains(desc, raw) {
			t.Errorf("the card's description shows markdown %q: %q", raw, desc)
		}
	}
	b.click(t, "#view-table")
	b.waitFor(t, "the table", `document.querySelector('#issue-table tr.issue-row') !== null`)
	if !eval[bool](t, b, noScroll) {
		t.Errorf("the table scrolls sideways: %v px wide in 1400", eval[float64](t, b, `document.documentElement.scrollWidth`))
	}
	if errs := b.errors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}

// TestBrowserPolishHelp: ? opens a panel listing every shortcut; Esc
// closes it, as does ? again.
func TestBrowserPolishHelp(t *testing.T) {
	b := newBrowser(t)
	f := newFixture(t)
	base, srv := startServe(t, f)
	b.do(t, chromedp.Navigate(base+"/?token="+srv.OpenToken))
	b.waitFor(t, "the board", `document.getElementById('board') !== null`)
	b.do(t, chromedp.Click("body"))
	b.key(t, "?")
	help := `document.getElementById('help-dialog')`
	b.waitFor(t, "the help", help+` !== null && `+help+`.open`)
	text := eval[string](t, b, help+`.innerText`)
	for _, want := range []string{"new issue", "filter the issues", "next and previous card", "open the card", "edit the issue", "column before", "column after", "close a dialog", "suggestion", "this help"} {
		if !strings.Contains(text, want) {
			t.Errorf("the help does not say %q:\n%s", want, text)
		}
	}
	b.screenshot(t, "help")
	b.key(t, kb.Escape)
	b.waitFor(t, "the help closed by Esc", help+` === null`)
	b.key(t, "?")
	b.waitFor(t, "the help again", help+` !== null && `+help+`.open`)
	b.key(t, "?")
	b.waitFor(t, "the help closed by ?", help+` === null`)
	if errs := b.errors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}
