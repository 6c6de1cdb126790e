package dashboard

import (
	"net/http"

	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

// specBody is a new spec from the page: what `sudocode spec create`
// takes, and a status to start in (draft when empty).
type specBody struct {
	Title       string   `json:"title"`
	Type        string   `json:"type"`
	Status      string   `json:"status"`
	Priority    *int     `json:"priority"`
	Description *string  `json:"description"`
	Content     string   `json:"content"`
	Tags        []string `json:"tags"`
}

// createSpec adds a spec as create_spec does; a status other than draft
// is then set as update_spec sets it, in the same hold of this server's
// tracker, so that none of its own changes falls in between (another
// process may read the spec as a draft for that moment: the tracker has
// no status at creation).
func (d *Dashboard) createSpec(w http.ResponseWriter, r *http.Request) {
	var in specBody
	if err := decode(r, &in); err != nil {
		fail(w, err)
		return
	}
	if in.Status != "" { // refused before anything is written
		if _, err := tracker.ParseEnum("status", in.Status, tracker.SpecStatuses); err != nil {
			fail(w, err)
			return
		}
	}
	var out tracker.Spec
	err := d.tracker.with(r.Context(), func(repo *store.Repo) (err error) {
		out, err = repo.CreateSpec(r.Context(), store.SpecInput{Title: in.Title, Type: in.Type, Priority: in.Priority,
			Description: in.Description, Design: in.Content, Tags: in.Tags})
		if err != nil || in.Status == "" || in.Status == string(out.Status) {
			return err
		}
		out, err = repo.UpdateSpec(r.Context(), out.ID, store.SpecPatch{Status: &in.Status})
		return err
	})
	if err != nil {
		fail(w, err)
		return
	}
	d.changed(w, TopicTracker, http.StatusCreated, out)
}
