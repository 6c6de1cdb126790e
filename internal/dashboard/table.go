package dashboard

import (
	"net/http"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

// tableLimit is how many rows the issues' table shows at once (the page
// asks for the next ones with offset).
const tableLimit = 200

// IssueTable is /api/issue-table: a page of the issues the board's filters
// select, as rows sorted by one column and grouped, each in its board
// column, with the groups' sizes and the number of issues selected.
type IssueTable struct {
	Rows   []store.TableRow   `json:"rows"`
	Groups []store.TableGroup `json:"groups"`
	Total  int                `json:"total"`
	Sort   string             `json:"sort"`
	Dir    string             `json:"dir"`
	Group  string             `json:"group"`
	Offset int                `json:"offset"`
}

func (d *Dashboard) issueTable(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	filter, err := boardFilter(q)
	if err != nil {
		fail(w, err)
		return
	}
	filter.Column, filter.Limit = "", tableLimit
	o := store.TableOptions{BoardFilter: filter, Sort: q.Get("sort"), Group: q.Get("group"), Desc: q.Get("dir") == "desc"}
	if o.Sort == "" {
		o.Sort = "priority"
	}
	if dir := q.Get("dir"); dir != "" && dir != "asc" && dir != "desc" {
		fail(w, fault.New(fault.Invalid, "dir %q is neither asc nor desc", dir))
		return
	}
	var t store.Table
	err = d.tracker.with(r.Context(), func(repo *store.Repo) (err error) {
		t, err = repo.Table(r.Context(), o)
		return err
	})
	if err != nil {
		fail(w, err)
		return
	}
	out := IssueTable{Rows: t.Rows, Groups: t.Groups, Total: t.Total, Sort: o.Sort, Dir: "asc", Group: o.Group, Offset: filter.Offset}
	if o.Desc {
		out.Dir = "desc"
	}
	writeJSON(w, http.StatusOK, out)
}

// assignees is /api/assignees: the names issues are assigned to, the most
// used first, for the assignee picker.
func (d *Dashboard) assignees(w http.ResponseWriter, r *http.Request) {
	var out []store.TableGroup
	err := d.tracker.with(r.Context(), func(repo *store.Repo) (err error) {
		out, err = repo.Assignees(r.Context())
		return err
	})
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, struct {
		Assignees []store.TableGroup `json:"assignees"`
	}{out})
}
