package dashboard

import (
	"net/http"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/rulesets"
)

// RulesetList is /api/rulesets.
type RulesetList struct {
	Rulesets []rulesets.Summary `json:"rulesets"`
}

func (d *Dashboard) rulesetList(w http.ResponseWriter, r *http.Request) {
	if d.opts.Rulesets.Store == nil {
		fail(w, fault.New(fault.Unavailable, "no ruleset store"))
		return
	}
	items, err := d.opts.Rulesets.List(r.Context())
	if err != nil {
		fail(w, err)
		return
	}
	if items == nil {
		items = []rulesets.Summary{}
	}
	writeJSON(w, http.StatusOK, RulesetList{Rulesets: items})
}

// ruleset is /api/rulesets/{name}: the ruleset with its markdown source,
// which the page renders (building DOM nodes, never HTML).
func (d *Dashboard) ruleset(w http.ResponseWriter, r *http.Request) {
	if d.opts.Rulesets.Store == nil {
		fail(w, fault.New(fault.Unavailable, "no ruleset store"))
		return
	}
	rs, err := d.opts.Rulesets.Get(r.Context(), r.PathValue("name"))
	if err != nil {
		fail(w, err)
		return
	}
	if rs.Tags == nil {
		rs.Tags = []string{}
	}
	writeJSON(w, http.StatusOK, rs)
}
