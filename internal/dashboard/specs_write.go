package dashboard

import (
	"net/http"

	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

// specWrites are the page's changes to specs and their feedback: the
// tracker's store methods, as `sudocode spec update` and `sudocode
// feedback …` call them (so a saved spec relocates its anchors).
func (d *Dashboard) specWrites(m *http.ServeMux) {
	m.HandleFunc("POST /api/specs", d.write(d.createSpec))
	m.HandleFunc("PATCH /api/specs/{id}", d.write(d.updateSpec))
	m.HandleFunc("POST /api/specs/{id}/feedback", d.write(d.addFeedback))
	m.HandleFunc("POST /api/feedback/{id}/status", d.write(d.feedbackStatus))
}

// specPatch is the JSON of a spec edit: only the fields sent change.
type specPatch struct {
	Title       *string   `json:"title"`
	Status      *string   `json:"status"`
	Type        *string   `json:"type"`
	Description *string   `json:"description"`
	Content     *string   `json:"content"`
	Priority    *int      `json:"priority"`
	Tags        *[]string `json:"tags"`
}

func (d *Dashboard) updateSpec(w http.ResponseWriter, r *http.Request) {
	var p specPatch
	if err := decode(r, &p); err != nil {
		fail(w, err)
		return
	}
	var out tracker.Spec
	err := d.tracker.with(r.Context(), func(repo *store.Repo) (err error) {
		out, err = repo.UpdateSpec(r.Context(), r.PathValue("id"), store.SpecPatch{Title: p.Title, Status: p.Status, Type: p.Type,
			Description: p.Description, Content: p.Content, Priority: p.Priority, Tags: p.Tags})
		return err
	})
	if err != nil {
		fail(w, err)
		return
	}
	d.changed(w, TopicTracker, http.StatusOK, out)
}

// feedbackBody is feedback given at a line (or at a text) of the spec.
type feedbackBody struct {
	IssueID string  `json:"issue_id"`
	Line    *int    `json:"line"`
	Text    *string `json:"text"`
	Type    string  `json:"type"`
	Content string  `json:"content"`
}

func (d *Dashboard) addFeedback(w http.ResponseWriter, r *http.Request) {
	var in feedbackBody
	if err := decode(r, &in); err != nil {
		fail(w, err)
		return
	}
	var out tracker.Feedback
	err := d.tracker.with(r.Context(), func(repo *store.Repo) (err error) {
		out, err = repo.AddFeedback(r.Context(), store.FeedbackInput{IssueID: in.IssueID, SpecID: r.PathValue("id"), Content: in.Content,
			Type: in.Type, Line: in.Line, Text: in.Text})
		return err
	})
	if err != nil {
		fail(w, err)
		return
	}
	d.changed(w, TopicTracker, http.StatusCreated, out)
}

func (d *Dashboard) feedbackStatus(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Status     string  `json:"status"`
		Resolution *string `json:"resolution"`
	}
	if err := decode(r, &in); err != nil {
		fail(w, err)
		return
	}
	st, err := tracker.ParseEnum("status", in.Status, tracker.FeedbackStatuses)
	if err != nil {
		fail(w, err)
		return
	}
	var out tracker.Feedback
	err = d.tracker.with(r.Context(), func(repo *store.Repo) (err error) {
		out, err = repo.SetFeedbackStatus(r.Context(), r.PathValue("id"), st, in.Resolution)
		return err
	})
	if err != nil {
		fail(w, err)
		return
	}
	d.changed(w, TopicTracker, http.StatusOK, out)
}
