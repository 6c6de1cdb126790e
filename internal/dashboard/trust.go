package dashboard

import (
	"net/http"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/orchestrator"
)

// errNoDigest refuses a trust that does not say which bytes were read.
var errNoDigest = fault.New(fault.Invalid, "sha256 is required: the digest of the agent.json whose commands were shown").
	WithHint("read GET /api/trust first, and send its sha256")

// trustRoutes show the project's .sudocode/agent.json commands and trust
// or revoke them, as `sudocode trust` does (the same orchestrator
// functions). Trusting takes the SHA-256 the page showed: a file that
// changed after the user read its commands is refused, not trusted.
func (d *Dashboard) trustRoutes(m *http.ServeMux) {
	m.HandleFunc("GET /api/trust", d.projectTrust)
	m.HandleFunc("POST /api/trust", d.write(d.trustProject))
	m.HandleFunc("POST /api/trust/revoke", d.write(d.revokeTrust))
}

// trustDir is the checkout whose settings the tasks use.
func (d *Dashboard) trustDir() string {
	if d.opts.Tasks != nil {
		return d.opts.Tasks.Repo()
	}
	return d.opts.Dir
}

func (d *Dashboard) projectTrust(w http.ResponseWriter, r *http.Request) {
	pt, err := orchestrator.TrustOf(r.Context(), d.trustDir())
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, pt)
}

func (d *Dashboard) trustProject(w http.ResponseWriter, r *http.Request) {
	var in struct {
		SHA256 string `json:"sha256"`
	}
	if err := decode(r, &in); err != nil {
		fail(w, err)
		return
	}
	if in.SHA256 == "" {
		fail(w, errNoDigest)
		return
	}
	pt, err := orchestrator.TrustFile(r.Context(), d.trustDir(), in.SHA256)
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, pt)
}

func (d *Dashboard) revokeTrust(w http.ResponseWriter, r *http.Request) {
	pt, _, err := orchestrator.RevokeTrust(r.Context(), d.trustDir())
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, pt)
}
