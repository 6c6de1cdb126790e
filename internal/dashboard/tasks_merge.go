package dashboard

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/orchestrator"
	"github.com/sudocode/sudocode/internal/orchestrator/agent"
)

// mergeTask merges a finished task's branch and closes its issue, as
// merge_task does (app.Merge). A conflict, a failing check or
// uncommitted changes in the way refuse it as a whole: the answer is the
// error naming them, and the checkout and the tracker are unchanged.
func (d *Dashboard) mergeTask(w http.ResponseWriter, r *http.Request) {
	if d.projectTasks(w) == nil {
		return
	}
	var in struct {
		Strategy string `json:"strategy"`
	}
	if err := decode(r, &in); err != nil {
		fail(w, err)
		return
	}
	if _, err := orchestrator.ParseMergeStrategy(in.Strategy); err != nil {
		fail(w, err)
		return
	}
	res, err := d.opts.Tasks.Merge(r.Context(), r.PathValue("id"), orchestrator.MergeInput{Strategy: in.Strategy})
	if err != nil && res.Commit == "" {
		fail(w, err)
		return
	}
	// Merged, but the issue could not be closed: the merge stands, and
	// the page is told both.
	out := struct {
		orchestrator.MergeResult
		Warning string `json:"warning,omitempty"`
	}{MergeResult: res}
	if err != nil {
		out.Warning = err.Error()
	}
	writeJSON(w, http.StatusOK, out)
}

// runBody is run_ready's arguments from the page.
type runBody struct {
	Tool     string          `json:"tool"`
	Config   json.RawMessage `json:"config"`
	Limit    int             `json:"limit"`
	Parallel int             `json:"parallel"`
	Strategy string          `json:"strategy"`
}

// runReady works the ready queue as run_ready does (app.RunReady) and
// answers with each issue's outcome once nothing is ready and nothing
// runs; the tasks it starts show on every page as they go.
func (d *Dashboard) runReady(w http.ResponseWriter, r *http.Request) {
	if d.projectTasks(w) == nil {
		return
	}
	var in runBody
	if err := decode(r, &in); err != nil {
		fail(w, err)
		return
	}
	if _, err := agent.Lookup(in.Tool); err != nil {
		fail(w, fault.Wrap(fault.Invalid, err, "no such agent").WithHint("choose one of "+strings.Join(agent.Kinds(), ", ")))
		return
	}
	if in.Limit < 0 || in.Parallel < 0 {
		fail(w, fault.New(fault.Invalid, "limit and parallel must not be negative").WithHint("leave them out for 10 and 1"))
		return
	}
	if _, err := orchestrator.ParseMergeStrategy(in.Strategy); err != nil {
		fail(w, err)
		return
	}
	res, err := d.opts.Tasks.RunReady(r.Context(), orchestrator.RunInput{Agent: strings.ToUpper(strings.TrimSpace(in.Tool)), Config: in.Config,
		Limit: in.Limit, Parallel: in.Parallel, Merge: orchestrator.MergeInput{Strategy: in.Strategy}})
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}
