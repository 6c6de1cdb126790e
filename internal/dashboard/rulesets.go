package dashboard

import (
	"net/http"
	"strconv"

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
		fail(w, pageHint(err))
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
		fail(w, pageHint(err))
		return
	}
	if rs.Tags == nil {
		rs.Tags = []string{}
	}
	writeJSON(w, http.StatusOK, rs)
}

// rulesetWrites are the page's changes to the library: the Library's
// methods, as the rulesets MCP server and `sudocode rulesets` call them.
func (d *Dashboard) rulesetWrites(m *http.ServeMux) {
	m.HandleFunc("POST /api/rulesets", d.write(d.createRuleset))
	m.HandleFunc("PATCH /api/rulesets/{name}", d.write(d.updateRuleset))
	m.HandleFunc("DELETE /api/rulesets/{name}", d.write(d.deleteRuleset))
	m.HandleFunc("POST /api/rulesets/{name}/restore", d.write(d.restoreRuleset))
	m.HandleFunc("GET /api/rulesets/{name}/history", d.rulesetHistory)
	m.HandleFunc("GET /api/rulesets/{name}/diff", d.rulesetDiff)
}

// library is the ruleset library, recording changes as the dashboard's
// actor; false (after answering 503) when there is none.
func (d *Dashboard) library(w http.ResponseWriter) (rulesets.Library, bool) {
	lib := d.opts.Rulesets
	if lib.Store == nil {
		fail(w, fault.New(fault.Unavailable, "no ruleset store"))
		return lib, false
	}
	if lib.Actor == "" {
		lib.Actor = d.opts.Actor
	}
	return lib, true
}

// rulesetBody is a ruleset as the page sends it; on an edit only the
// fields sent change.
type rulesetBody struct {
	Name        string    `json:"name"`
	Description *string   `json:"description"`
	Markdown    *string   `json:"markdown"`
	Tags        *[]string `json:"tags"`
	// The scope (rulesets.Scope): where the ruleset applies and to whom.
	Globs   *[]string `json:"globs"`
	Always  *bool     `json:"always"`
	Targets *[]string `json:"targets"`
}

// scope sets p's scope fields from the ones in sent.
func (in rulesetBody) scope(p *rulesets.Patch) {
	if in.Globs != nil {
		p.Globs, p.SetGlobs = *in.Globs, true
	}
	if in.Targets != nil {
		p.Targets, p.SetTargets = *in.Targets, true
	}
	p.Always = in.Always
}

func (d *Dashboard) createRuleset(w http.ResponseWriter, r *http.Request) {
	lib, ok := d.library(w)
	if !ok {
		return
	}
	var in rulesetBody
	if err := decode(r, &in); err != nil {
		fail(w, pageHint(err))
		return
	}
	rs := rulesets.Ruleset{Name: in.Name}
	if in.Description != nil {
		rs.Description = *in.Description
	}
	if in.Markdown != nil {
		rs.Markdown = *in.Markdown
	}
	if in.Tags != nil {
		rs.Tags = *in.Tags
	}
	var sc rulesets.Patch
	in.scope(&sc)
	rs.Globs, rs.Targets, rs.Always = sc.Globs, sc.Targets, sc.Always != nil && *sc.Always
	if err := lib.Create(r.Context(), rs); err != nil {
		fail(w, pageHint(err))
		return
	}
	d.changed(w, TopicRulesets, http.StatusCreated, map[string]string{"name": in.Name})
}

func (d *Dashboard) updateRuleset(w http.ResponseWriter, r *http.Request) {
	lib, ok := d.library(w)
	if !ok {
		return
	}
	var in rulesetBody
	if err := decode(r, &in); err != nil {
		fail(w, pageHint(err))
		return
	}
	name := r.PathValue("name")
	if _, err := lib.Get(r.Context(), name); err != nil {
		fail(w, pageHint(err)) // an edit never creates: a typo must not make a new ruleset
		return
	}
	p := rulesets.Patch{Name: name, Description: in.Description, Markdown: in.Markdown}
	if in.Tags != nil {
		p.Tags, p.SetTags = *in.Tags, true
	}
	in.scope(&p)
	if _, err := lib.Upsert(r.Context(), p); err != nil {
		fail(w, pageHint(err))
		return
	}
	d.changed(w, TopicRulesets, http.StatusOK, map[string]string{"name": name})
}

func (d *Dashboard) deleteRuleset(w http.ResponseWriter, r *http.Request) {
	lib, ok := d.library(w)
	if !ok {
		return
	}
	if err := lib.Delete(r.Context(), r.PathValue("name")); err != nil {
		fail(w, pageHint(err))
		return
	}
	d.changed(w, TopicRulesets, http.StatusOK, map[string]string{"deleted": r.PathValue("name")})
}

func (d *Dashboard) restoreRuleset(w http.ResponseWriter, r *http.Request) {
	lib, ok := d.library(w)
	if !ok {
		return
	}
	var in struct {
		Version int `json:"version"`
	}
	if err := decode(r, &in); err != nil {
		fail(w, pageHint(err))
		return
	}
	if _, err := lib.Restore(r.Context(), r.PathValue("name"), in.Version); err != nil {
		fail(w, pageHint(err))
		return
	}
	d.changed(w, TopicRulesets, http.StatusOK, map[string]any{"name": r.PathValue("name"), "restored": in.Version})
}

// RulesetHistory is /api/rulesets/{name}/history: its changes, newest
// first.
type RulesetHistory struct {
	Changes []rulesets.Change `json:"changes"`
}

func (d *Dashboard) rulesetHistory(w http.ResponseWriter, r *http.Request) {
	lib, ok := d.library(w)
	if !ok {
		return
	}
	changes, err := lib.History(r.Context(), r.PathValue("name"), rulesets.MaxHistory)
	if err != nil {
		fail(w, pageHint(err))
		return
	}
	if changes == nil {
		changes = []rulesets.Change{}
	}
	writeJSON(w, http.StatusOK, RulesetHistory{Changes: changes})
}

// RulesetDiff is /api/rulesets/{name}/diff?from=V&to=V (0 or absent: the
// ruleset as it is now).
type RulesetDiff struct {
	From int    `json:"from"`
	To   int    `json:"to"`
	Diff string `json:"diff"`
}

func (d *Dashboard) rulesetDiff(w http.ResponseWriter, r *http.Request) {
	lib, ok := d.library(w)
	if !ok {
		return
	}
	var vs [2]int
	for i, k := range []string{"from", "to"} {
		if s := r.URL.Query().Get(k); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil || n < 0 {
				fail(w, fault.New(fault.Invalid, "%s=%q is not a version number", k, s).WithHint("versions are numbered from 1; 0 is the ruleset as it is now"))
				return
			}
			vs[i] = n
		}
	}
	diff, err := lib.Diff(r.Context(), r.PathValue("name"), vs[0], vs[1])
	if err != nil {
		fail(w, pageHint(err))
		return
	}
	writeJSON(w, http.StatusOK, RulesetDiff{From: vs[0], To: vs[1], Diff: diff})
}

// pageHint is err with its hint in the page's words when the hint names
// an MCP tool, which the page's user has no way to call.
func pageHint(err error) error {
	fe, ok := err.(*fault.Error)
	if !ok {
		return err
	}
	switch fe.Hint {
	case rulesets.HintList:
		return fe.WithHint("the Rulesets page lists every ruleset")
	case rulesets.HintUpsert:
		return fe.WithHint("choose another name, or open it on the Rulesets page and edit it")
	}
	return err
}
