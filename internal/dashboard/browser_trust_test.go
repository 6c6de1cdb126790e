package dashboard_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/sudocode/sudocode/internal/orchestrator"
	"github.com/sudocode/sudocode/internal/userenv"
)

// TestBrowserTrust: the Tasks view shows the commands of the project's
// untrusted agent.json; pressing Trust trusts that file (as sudocode trust
// does), and Revoke takes it back.
func TestBrowserTrust(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	b := newBrowser(t)
	f := newFixture(t)
	if err := writeFile(filepath.Join(f.dir, ".sudocode", "agent.json"), `{"setup": "echo prepared", "merge": {"check": "make test"}}`); err != nil {
		t.Fatal(err)
	}
	base, srv := startServe(t, f)
	if srv.Tasks == nil {
		t.Fatalf("tasks unavailable: %s", srv.TasksUnavailable)
	}
	b.do(t, chromedp.Navigate(base+"/?token="+browserToken+"#/tasks"))
	b.waitFor(t, "the untrusted commands", `(() => { const p = document.querySelector('#project-trust');
		return p !== null && p.dataset.state === 'untrusted' && Array.from(p.querySelectorAll('code')).map(c => c.textContent).join('|') === 'echo prepared|make test'; })()`)
	b.screenshot(t, "trust-untrusted")
	b.click(t, "#trust-allow")
	b.waitFor(t, "the trusted state", `document.querySelector('#project-trust').dataset.state === 'trusted' && document.getElementById('trust-revoke') !== null`)
	if pt, err := orchestrator.TrustOf(context.Background(), f.dir, userenv.Env{}); err != nil || pt.State != orchestrator.TrustTrusted {
		t.Fatalf("after Trust: %+v %v", pt, err)
	}
	b.screenshot(t, "trust-trusted")
	b.click(t, "#trust-revoke")
	b.waitFor(t, "the revoked state", `document.querySelector('#project-trust').dataset.state === 'untrusted'`)
	if pt, _ := orchestrator.TrustOf(context.Background(), f.dir, userenv.Env{}); pt.State != orchestrator.TrustUntrusted {
		t.Errorf("after Revoke: %s", pt.State)
	}
	if errs := b.errors(); len(errs) != 0 {
		t.Errorf("console errors: %v", errs)
	}
}
