package dashboard_test

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/sudocode/sudocode/internal/tracker"
)

// TestBrowserSpecForm: through the page only, create a spec (its type,
// status, priority, tags and markdown), see it listed, then move it from
// review to approved with its status picker; the tracker has each change.
func TestBrowserSpecForm(t *testing.T) {
	b := newBrowser(t)
	f := newFixture(t)
	base, srv := startServe(t, f)
	b.do(t, chromedp.Navigate(base+"/?token="+srv.OpenToken+"#/specs"))
	b.click(t, "#new-spec")
	b.waitFor(t, "the new spec form", `document.getElementById('new-spec-form') !== null && document.activeElement.id === 'new-spec-title'`)
	b.fill(t, "#new-spec-title", "Session expiry")
	b.fill(t, "#new-spec-type", "api")
	b.fill(t, "#new-spec-status", "review")
	b.fill(t, "#new-spec-priority", "1")
	b.fill(t, "#new-spec-tags", "auth, sessions")
	b.fill(t, "#new-spec-description", "When a session ends")
	b.fill(t, "#new-spec-content", "# Session expiry\n\n- Idle sessions end after 30 minutes.\n")
	b.screenshot(t, "spec-create")
	b.press(t, "new-spec-save")
	b.waitFor(t, "the new spec's page", `location.hash.startsWith('#/spec/') && document.getElementById('spec-status') !== null && document.querySelector('main h1').textContent === 'Session expiry'`)
	id := strings.TrimPrefix(eval[string](t, b, `location.hash`), "#/spec/")
	ctx := context.Background()
	d, err := f.repo.ShowSpec(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if d.Status != tracker.SpecReview || d.Type != "api" || d.Priority != 1 || strings.Join(d.Tags, ",") != "auth,sessions" ||
		d.Description == nil || *d.Description != "When a session ends" || !strings.Contains(d.Content, "Idle sessions end") {
		t.Errorf("the spec in the tracker: %+v", d.Spec)
	}
	if !eval[bool](t, b, `document.getElementById('spec-status').value === 'review' && document.querySelector('#spec-source .line[data-line="3"]').textContent.includes('Idle sessions')`) {
		t.Error("the spec's page does not show its status or markdown")
	}

	b.fill(t, "#spec-status", "approved")
	b.waitFor(t, "the spec approved", `document.querySelector('main .title-row .badge').textContent === 'approved'`)
	if d, err := f.repo.ShowSpec(ctx, id); err != nil || d.Status != tracker.SpecApproved {
		t.Errorf("the tracker has %s (%v), want approved", d.Status, err)
	}
	eval[string](t, b, `location.hash = '#/specs'`)
	b.waitFor(t, "the list with it approved", `(() => { const r = document.querySelector('#spec-list tr[data-id="`+id+`"] .badge'); return !!r && r.textContent === 'approved' })()`)
	b.settle(t)
	for _, e := range b.errors() {
		t.Errorf("console error: %s", e)
	}
}
