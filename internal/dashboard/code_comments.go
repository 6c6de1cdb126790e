package dashboard

import (
	"net/http"

	"github.com/sudocode/sudocode/internal/orchestrator"
)

// reviewRoutes are a task's review: comments on lines of its code, each
// following its code as the agent changes the files
// (orchestrator.CodeComments), and sending the open ones with a follow-up
// as one update.
func (d *Dashboard) reviewRoutes(m *http.ServeMux) {
	m.HandleFunc("GET /api/tasks/{id}/comments", d.codeComments)
	m.HandleFunc("POST /api/tasks/{id}/comments", d.write(d.addCodeComment))
	m.HandleFunc("DELETE /api/tasks/{id}/comments/{cid}", d.write(d.deleteCodeComment))
	m.HandleFunc("POST /api/tasks/{id}/review", d.write(d.sendReview))
}

// CodeComments is /api/tasks/{id}/comments: oldest first, each where its
// code is now.
type CodeComments struct {
	Comments []orchestrator.CodeComment `json:"comments"`
}

func (d *Dashboard) codeComments(w http.ResponseWriter, r *http.Request) {
	o := d.projectTasks(w)
	if o == nil {
		return
	}
	cs, err := o.CodeComments(r.Context(), r.PathValue("id"))
	if err != nil {
		fail(w, err)
		return
	}
	if cs == nil {
		cs = []orchestrator.CodeComment{}
	}
	writeJSON(w, http.StatusOK, CodeComments{Comments: cs})
}

func (d *Dashboard) addCodeComment(w http.ResponseWriter, r *http.Request) {
	o := d.projectTasks(w)
	if o == nil {
		return
	}
	var in orchestrator.CodeCommentInput
	if err := decode(r, &in); err != nil {
		fail(w, err)
		return
	}
	c, err := o.AddCodeComment(r.Context(), r.PathValue("id"), in)
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, http.StatusCreated, c)
}

func (d *Dashboard) deleteCodeComment(w http.ResponseWriter, r *http.Request) {
	o := d.projectTasks(w)
	if o == nil {
		return
	}
	if err := o.DeleteCodeComment(r.Context(), r.PathValue("id"), r.PathValue("cid")); err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"deleted": r.PathValue("cid")})
}

// SentReview is what /api/tasks/{id}/review answers: the task, running
// again, and the comments that went with the follow-up.
type SentReview struct {
	Task     orchestrator.Task          `json:"task"`
	Comments []orchestrator.CodeComment `json:"comments"`
}

func (d *Dashboard) sendReview(w http.ResponseWriter, r *http.Request) {
	o := d.projectTasks(w)
	if o == nil {
		return
	}
	var in struct {
		Instructions string `json:"instructions"`
	}
	if err := decode(r, &in); err != nil {
		fail(w, err)
		return
	}
	t, sent, err := o.SendReview(r.Context(), r.PathValue("id"), in.Instructions)
	if err != nil {
		fail(w, err)
		return
	}
	if sent == nil {
		sent = []orchestrator.CodeComment{}
	}
	writeJSON(w, http.StatusOK, SentReview{Task: t, Comments: sent})
}
