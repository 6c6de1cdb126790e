package dashboard_test

import (
	"context"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/sudocode/sudocode/internal/tracker/store"
)

// TestBrowserFocusSurvivesALiveChange: a search hit that j moved the
// keyboard focus to keeps it when a change from elsewhere (an agent filing
// an issue) re-renders the results, so the Enter that follows opens it. A
// hit is a link without an id; the refresh used to drop its focus.
func TestBrowserFocusSurvivesALiveChange(t *testing.T) {
	b := newBrowser(t)
	f := newFixture(t)
	base, srv := startServe(t, f)
	b.do(t, chromedp.Navigate(base+"/?token="+srv.OpenToken+"#/search/token"))
	b.waitFor(t, "the search results", `document.querySelector('#search-results .search-hit') !== null`)
	b.settle(t)
	b.key(t, "j")
	focused := `document.activeElement && document.activeElement.classList.contains('search-hit') && document.activeElement.getAttribute('href') === ` + js("#/issue/"+f.open)
	b.waitFor(t, "the first hit focused", focused)

	renders := eval[string](t, b, `document.body.dataset.rendered`)
	added, err := f.repo.CreateIssue(context.Background(), store.IssueInput{Title: "Rotate the token keys"})
	if err != nil {
		t.Fatal(err)
	}
	b.waitFor(t, "the results drawn again with the new issue", `document.body.dataset.rendered !== `+js(renders)+
		` && document.querySelector('#search-results .search-hit[href="#/issue/`+added.ID+`"]') !== null`)
	b.waitFor(t, "the focus kept on the hit", focused)
	b.key(t, kb.Enter)
	b.waitFor(t, "the hit's issue", `location.hash === `+js("#/issue/"+f.open))
}
