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

func (d *Dashboard) projectTrust(w http.ResponseWriter, r *http.Request) {
	o := d.projectTasks(w) // no tasks, no commands to run: unavailable as they are
	if o == nil {
		return
	}
	pt, err := orchestrator.TrustOf(r.Context(), o.Repo(), o.Env())
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, pt)
}

func (d *Dashboard) trustProject(w http.ResponseWriter, r *http.Request) {
	o := d.projectTasks(w)
	if o == nil {
		return
	}
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
	pt, err := orchestrator.TrustFile(r.Context(), o.Repo(), in.SHA256, o.Env())
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, pt)
}

func (d *Dashboard) revokeTrust(w http.ResponseWriter, r *http.Request) {
	o := d.projectTasks(w)
	if o == nil {
		return
	}
	pt, _, err := orchestrator.RevokeTrust(r.Context(), o.Repo(), o.Env())
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, pt)
}
