package dashboard

import (
	"net/http"

	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

// commentWrites is the page's comment box: the store's AddComment, as
// `sudocode issue comment` and the add_comment tool call it. The issue's
// page reads the comments and the history with the issue.
func (d *Dashboard) commentWrites(m *http.ServeMux) {
	m.HandleFunc("POST /api/issues/{id}/comments", d.write(d.addComment))
}

func (d *Dashboard) addComment(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Body string `json:"body"`
	}
	if err := decode(r, &in); err != nil {
		fail(w, err)
		return
	}
	var out tracker.Comment
	err := d.tracker.with(r.Context(), func(repo *store.Repo) (err error) {
		out, err = repo.AddComment(r.Context(), r.PathValue("id"), in.Body)
		return err
	})
	if err != nil {
		fail(w, err)
		return
	}
	d.changed(w, TopicTracker, http.StatusCreated, out)
}
