package dashboard_test

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// TestBrowserLinksReadOneWay: `link A B --type blocks` means A waits for
// B (as the tracker defines it: docs/servers.md#tracker). The page says so in those words on both issues' pages
// and in the form that makes a link, as the CLI does; nothing on it reads
// "A blocks B" or "Blocked by".
func TestBrowserLinksReadOneWay(t *testing.T) {
	b := newBrowser(t)
	f := newFixture(t) // f.waiting waits for f.open (blocks)
	base, srv := startServe(t, f)
	ctx := context.Background()
	mainText := `document.querySelector('main').innerText`
	backwards := func(page string) {
		t.Helper()
		text := eval[string](t, b, mainText)
		for _, bad := range []string{"Blocked by", "blocked by", "blocks " + f.open, "this issue blocks"} {
			if strings.Contains(text, bad) {
				t.Errorf("%s says %q, which reads backwards:\n%s", page, bad, text)
			}
		}
	}

	b.do(t, chromedp.Navigate(base+"/?token="+srv.OpenToken+"#/issue/"+f.waiting))
	b.waitFor(t, "the waiting issue's links", mainText+`.includes('this issue waits for `+f.open+`')`)
	b.waitFor(t, "what it waits for", `[...document.querySelectorAll('main h3')].some((e) => e.textContent === 'Waits for')`)
	backwards("the waiting issue's page")

	b.do(t, chromedp.Navigate(base+"/#/issue/"+f.open))
	b.waitFor(t, "the link seen from the other end", mainText+`.includes('`+f.waiting+` waits for this issue')`)
	backwards("the awaited issue's page")

	// The form reads as a sentence: this issue [waits for (blocks)] [id].
	b.do(t, chromedp.Navigate(base+"/#/issue/"+f.progress))
	b.waitFor(t, "the link form", `document.getElementById('link-form') !== null`)
	b.act(t, chromedp.SetValue("#link-type", "blocks"))
	if got := eval[string](t, b, `document.getElementById('link-form').innerText.replace(/\s+/g, ' ')`); !strings.Contains(got, "this issue waits for (blocks)") {
		t.Errorf("the link form reads %q; want it to start with %q", got, "this issue waits for (blocks)")
	}
	b.act(t, chromedp.SendKeys("#link-to", f.open+kb.Enter))
	b.waitFor(t, "the new link", mainText+`.includes('this issue waits for `+f.open+`')`)
	d, err := f.repo.ShowIssue(ctx, f.progress)
	if err != nil || len(d.Relationships.Outgoing) != 1 {
		t.Fatalf("links after linking: %+v, %v", d.Relationships.Outgoing, err)
	}
	if r := d.Relationships.Outgoing[0]; r.From != f.progress || r.To != f.open || r.Type != "blocks" {
		t.Errorf("the form made %s %s %s; want %s blocks %s (it waits for it)", r.From, r.Type, r.To, f.progress, f.open)
	}
	if got := eval[string](t, b, `document.querySelector('[data-rel=`+js(f.progress+" blocks "+f.open)+`] button.unlink').getAttribute('aria-label')`); got != "remove the link: this issue waits for "+f.open {
		t.Errorf("the unlink button is labelled %q", got)
	}
	backwards("the issue linked through the form")
	if errs := b.errors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}
