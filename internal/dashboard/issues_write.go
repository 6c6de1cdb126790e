package dashboard

import (
	"net/http"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

// issueWrites are the page's changes to issues and links: the tracker's
// store methods, as `sudocode issue …` and the MCP tools call them.
func (d *Dashboard) issueWrites(m *http.ServeMux) {
	m.HandleFunc("POST /api/issues", d.write(d.createIssue))
	m.HandleFunc("PATCH /api/issues/{id}", d.write(d.updateIssue))
	m.HandleFunc("POST /api/issues/{id}/close", d.write(d.closeIssue))
	m.HandleFunc("POST /api/links", d.write(d.link))
	m.HandleFunc("DELETE /api/links", d.write(d.unlink))
}

func (d *Dashboard) createIssue(w http.ResponseWriter, r *http.Request) {
	var in store.IssueInput
	if err := decode(r, &in); err != nil {
		fail(w, err)
		return
	}
	var out tracker.Issue
	err := d.tracker.with(r.Context(), func(repo *store.Repo) (err error) {
		out, err = repo.CreateIssue(r.Context(), in)
		return err
	})
	if err != nil {
		fail(w, err)
		return
	}
	d.changed(w, TopicTracker, http.StatusCreated, out)
}

// issuePatch is the JSON of an edit: only the fields sent change.
type issuePatch struct {
	Title       *string   `json:"title"`
	Description *string   `json:"description"`
	Status      *string   `json:"status"`
	Type        *string   `json:"type"`
	Assignee    *string   `json:"assignee"`
	Priority    *int      `json:"priority"`
	Estimate    *int      `json:"estimate"`
	Tags        *[]string `json:"tags"`
}

func (d *Dashboard) updateIssue(w http.ResponseWriter, r *http.Request) {
	var p issuePatch
	if err := decode(r, &p); err != nil {
		fail(w, err)
		return
	}
	var out tracker.Issue
	err := d.tracker.with(r.Context(), func(repo *store.Repo) (err error) {
		out, err = repo.UpdateIssue(r.Context(), r.PathValue("id"), store.IssuePatch{Title: p.Title, Description: p.Description,
			Status: p.Status, Type: p.Type, Assignee: p.Assignee, Priority: p.Priority, Estimate: p.Estimate, Tags: p.Tags})
		return err
	})
	if err != nil {
		fail(w, err)
		return
	}
	d.changed(w, TopicTracker, http.StatusOK, out)
}

func (d *Dashboard) closeIssue(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Reason string `json:"reason"`
	}
	if err := decode(r, &in); err != nil {
		fail(w, err)
		return
	}
	var out []tracker.CloseResult
	err := d.tracker.with(r.Context(), func(repo *store.Repo) (err error) {
		out, err = repo.CloseIssues(r.Context(), []string{r.PathValue("id")}, in.Reason)
		return err
	})
	if err != nil {
		fail(w, err)
		return
	}
	if !out[0].Success {
		fail(w, fault.New(fault.NotFound, "%s", *out[0].Error))
		return
	}
	d.changed(w, TopicTracker, http.StatusOK, out[0])
}

// linkBody is a relationship, in the words of `sudocode link`.
type linkBody struct {
	From string `json:"from"`
	To   string `json:"to"`
	Type string `json:"type"`
}

func (d *Dashboard) link(w http.ResponseWriter, r *http.Request)   { d.linkOrUnlink(w, r, true) }
func (d *Dashboard) unlink(w http.ResponseWriter, r *http.Request) { d.linkOrUnlink(w, r, false) }

func (d *Dashboard) linkOrUnlink(w http.ResponseWriter, r *http.Request, add bool) {
	var in linkBody
	if err := decode(r, &in); err != nil {
		fail(w, err)
		return
	}
	if in.From == "" || in.To == "" {
		fail(w, fault.New(fault.Invalid, "a link needs from and to (the ids of two issues or specs)"))
		return
	}
	var out tracker.LinkResult
	err := d.tracker.with(r.Context(), func(repo *store.Repo) (err error) {
		if add {
			out, err = repo.Link(r.Context(), in.From, in.To, in.Type)
		} else {
			out, err = repo.Unlink(r.Context(), in.From, in.To, in.Type)
		}
		return err
	})
	if err != nil {
		fail(w, err)
		return
	}
	d.changed(w, TopicTracker, http.StatusOK, out)
}
