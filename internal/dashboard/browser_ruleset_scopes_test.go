package dashboard_test

import (
	"context"
	"slices"
	"strconv"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/sudocode/sudocode/internal/rulesets"
)

// TestBrowserRulesetScopes: through the page only, give a ruleset globs,
// always and targets, seeing as the globs are typed which of the
// project's tracked files each picks (a ../ glob none); the saved ruleset
// shows its scope and its files, and the library has it; cleared, the
// ruleset applies everywhere again.
func TestBrowserRulesetScopes(t *testing.T) {
	b := newBrowser(t)
	f := newFixture(t)
	f.commitFiles(t, "cmd/main.go", "internal/store/store.go", "web/app.js", "web/lib/util.js")
	base, srv := startServe(t, f)
	lib := rulesets.Library{Store: f.rules}
	b.do(t, chromedp.Navigate(base+"/?token="+srv.OpenToken+"#/edit-ruleset/go_style"))
	b.waitFor(t, "the form's scope", `document.getElementById('ruleset-scope') !== null && document.getElementById('glob-matches').textContent.includes('applies everywhere')`)
	match := func(glob string, n int) string {
		return `(() => { const l = Array.from(document.querySelectorAll('#glob-matches li')).find((e) => e.dataset.glob === ` + js(glob) + `); return !!l && l.dataset.total === '` + strconv.Itoa(n) + `' })()`
	}
	b.fill(t, "#ruleset-globs", "**/*.go\nweb/**\n../**")
	b.waitFor(t, "what each glob picks", match("**/*.go", 2)+` && `+match("web/**", 2)+` && `+match("../**", 0))
	if !eval[bool](t, b, `document.querySelector('#glob-matches li[data-glob="web/**"]').textContent.includes('web/lib/util.js')`) {
		t.Error("the files web/** picks are not listed")
	}
	b.click(t, "#ruleset-always")
	b.click(t, `#ruleset-scope input[data-target="claude"]`)
	b.click(t, `#ruleset-scope input[data-target="cursor"]`)
	b.fill(t, "#ruleset-globs", "**/*.go\nweb/**")
	b.waitFor(t, "the ../ glob gone", match("web/**", 2)+` && document.querySelectorAll('#glob-matches li').length === 2`)
	b.screenshot(t, "ruleset-scopes")
	b.press(t, "ruleset-save")
	b.waitFor(t, "the ruleset with its scope", `location.hash === '#/ruleset/go_style' && document.getElementById('ruleset-scope-summary') !== null && `+match("web/**", 2))
	r, err := lib.Get(context.Background(), "go_style")
	if err != nil || !slices.Equal(r.Globs, []string{"**/*.go", "web/**"}) || !r.Always || !slices.Equal(r.Targets, []string{"claude", "cursor"}) {
		t.Fatalf("the library has %+v %v", r.Scope, err)
	}
	if !eval[bool](t, b, `(() => { const s = document.getElementById('ruleset-scope-summary').textContent; return s.includes('always') && s.includes('for claude, cursor') })()`) {
		t.Error("the ruleset's page does not show its scope")
	}

	// Cleared: everywhere, for every agent.
	eval[string](t, b, `location.hash = '#/edit-ruleset/go_style'`)
	b.waitFor(t, "the form with the scope", `document.getElementById('ruleset-globs') !== null && document.getElementById('ruleset-globs').value === '**/*.go\nweb/**'`)
	b.fill(t, "#ruleset-globs", "")
	b.click(t, "#ruleset-always")
	b.click(t, `#ruleset-scope input[data-target="claude"]`)
	b.click(t, `#ruleset-scope input[data-target="cursor"]`)
	b.press(t, "ruleset-save")
	b.waitFor(t, "the ruleset everywhere", `location.hash === '#/ruleset/go_style' && document.getElementById('ruleset-scope-summary') !== null && document.getElementById('ruleset-scope-summary').textContent.includes('applies everywhere')`)
	if r, _ := lib.Get(context.Background(), "go_style"); !r.Scope.IsZero() {
		t.Errorf("cleared, the library has %+v", r.Scope)
	}
	b.settle(t)
	for _, e := range b.errors() {
		t.Errorf("console error: %s", e)
	}
}
