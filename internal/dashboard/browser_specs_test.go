package dashboard_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

// TestBrowserSpecWork: through the page only, edit a spec's markdown and
// see its feedback's anchor move with the text; give feedback by picking a
// line; resolve it with a word; the spec lists its implementing issue and
// counts its open feedback.
func TestBrowserSpecWork(t *testing.T) {
	b := newBrowser(t)
	f := newFixture(t)
	ctx := context.Background()
	if _, err := f.repo.Link(ctx, f.waiting, f.spec, "implements"); err != nil {
		t.Fatal(err)
	}
	base, srv := startServe(t, f)
	b.do(t, chromedp.Navigate(base+"/?token="+srv.OpenToken))
	b.waitFor(t, "the writable page", `document.body.classList.contains('read-only') === false && document.getElementById('board') !== null`)
	eval[string](t, b, `location.hash = `+js("#/spec/"+f.spec))
	b.waitFor(t, "the spec", `document.getElementById('spec-source') !== null`)
	if !eval[bool](t, b, `document.querySelector('#implementers').textContent.includes('Implement login') && document.getElementById('open-feedback').textContent === '2 open feedback'`) {
		t.Error("the spec does not list its implementer or count its open feedback")
	}
	fbAt := func(line int, id string) string {
		return `(() => { const l = document.querySelector('#spec-source .line[data-line="` + strconv.Itoa(line) + `"]');
			return !!l && !!l.nextElementSibling && l.nextElementSibling.querySelector('.feedback[data-id=` + js(id) + `]') !== null })()`
	}
	b.waitFor(t, "the feedback at line 8", fbAt(8, f.fbValid))

	// e opens the editor; two lines typed at the top move the anchor down.
	b.act(t, chromedp.Click("main h1"))
	b.key(t, "e")
	b.waitFor(t, "the editor", `document.activeElement && document.activeElement.id === 'spec-content'`)
	b.key(t, kb.Home, chromedp.KeyModifiers(chromedp.ModifierCtrl))
	b.key(t, "A new first line."+kb.Enter+kb.Enter)
	b.click(t, "#spec-content-show")
	b.waitFor(t, "the preview", `document.querySelector('#spec-content-preview h1') !== null`)
	b.screenshot(t, "spec-edit")
	b.click(t, "#spec-save")
	b.waitFor(t, "the feedback moved to line 10", fbAt(10, f.fbValid))
	d, err := f.repo.ShowFeedback(ctx, f.fbValid)
	if err != nil {
		t.Fatal(err)
	}
	if d.Location == nil || d.Location.LineNumber != 10 {
		t.Errorf("the anchor in the tracker: %+v", d.Location)
	}

	// Feedback at line 3, picked with the mouse.
	b.click(t, "#line-3")
	b.waitFor(t, "the feedback form", `document.activeElement && document.activeElement.id === 'fb-issue'`)
	b.key(t, f.open)
	b.act(t, chromedp.SendKeys("#fb-content", "Is this line needed?"))
	// A change elsewhere re-renders the spec live; the half-written form
	// stays open with what was typed.
	rendered := eval[string](t, b, `document.body.dataset.rendered`)
	if _, err := f.repo.CreateIssue(ctx, store.IssueInput{Title: "Meanwhile, elsewhere"}); err != nil {
		t.Fatal(err)
	}
	b.waitFor(t, "a live re-render", `document.body.dataset.rendered !== `+js(rendered))
	if !eval[bool](t, b, `!!document.getElementById('fb-form') && document.getElementById('fb-content').value === 'Is this line needed?' && document.getElementById('fb-issue').value === `+js(f.open)) {
		t.Fatal("a live change closed the feedback form or lost what was typed")
	}
	b.click(t, "#fb-add")
	b.waitFor(t, "the new feedback at line 3", `(() => { const l = document.querySelector('#spec-source .line[data-line="3"]');
		return !!l && !!l.nextElementSibling && l.nextElementSibling.textContent.includes('Is this line needed?') })()`)
	list, err := f.repo.ShowSpec(ctx, f.spec)
	if err != nil {
		t.Fatal(err)
	}
	var added string
	for _, fb := range list.Feedback {
		if strings.Contains(fb.Content, "Is this line needed?") {
			added = fb.ID
		}
	}
	if added == "" {
		t.Fatal("the feedback is not in the tracker")
	}
	// The type left as the form offers it is the tracker's default, as in the CLI and MCP.
	if fb, err := f.repo.ShowFeedback(ctx, added); err != nil || fb.Type != tracker.DefaultFeedbackType {
		t.Errorf("feedback added with the form's default type: %q, %v; want %q", fb.Type, err, tracker.DefaultFeedbackType)
	}
	b.waitFor(t, "three open", `document.getElementById('open-feedback').textContent === '3 open feedback'`)
	b.screenshot(t, "spec-feedback")

	// Resolve it, with a word on why.
	b.click(t, `.feedback[data-id="`+added+`"] button[data-act="resolved"]`)
	b.waitFor(t, "the resolution dialog", `document.activeElement && document.activeElement.id === 'ask-input'`)
	b.key(t, "kept, it sets the scene"+kb.Enter)
	b.waitFor(t, "two open", `document.getElementById('open-feedback').textContent === '2 open feedback'`)
	got, err := f.repo.ShowFeedback(ctx, added)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != "resolved" || got.Resolution == nil || *got.Resolution != "kept, it sets the scene" {
		t.Errorf("the feedback after resolving: %s %v", got.Status, got.Resolution)
	}
	b.settle(t)
	if errs := b.errors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}
