package dashboard

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/orchestrator"
)

// taskWrites are the page's actions on agents: the orchestrator's Create,
// Start, Update (a review), End, Merge and RunReady, as create_task, update_task, end_task, merge_task and
// run_ready call them.
func (d *Dashboard) taskWrites(m *http.ServeMux) {
	m.HandleFunc("GET /api/agents", d.agents)
	m.HandleFunc("GET /api/tasks/{id}/report", d.taskReport)
	m.HandleFunc("POST /api/tasks", d.write(d.startTask))
	m.HandleFunc("POST /api/tasks/{id}/follow-up", d.write(d.followUp))
	m.HandleFunc("POST /api/tasks/{id}/stop", d.write(d.stopTask))
	m.HandleFunc("POST /api/tasks/{id}/merge", d.write(d.mergeTask))
	m.HandleFunc("POST /api/run-ready", d.write(d.runReady))
	d.trustRoutes(m)
}

// AgentList is /api/agents: every agent kind, whether it can run here, and
// for one that cannot, why (for a CLI, the command that installs it).
type AgentList struct {
	Agents []AgentKind `json:"agents"`
}

// AgentKind is one kind of agent.
type AgentKind = orchestrator.KindInfo

func (d *Dashboard) agents(w http.ResponseWriter, r *http.Request) {
	o := d.projectTasks(w)
	if o == nil {
		return
	}
	ov, err := o.Status(r.Context())
	if err != nil {
		fail(w, err)
		return
	}
	out := AgentList{Agents: ov.Kinds}
	if out.Agents == nil {
		out.Agents = []AgentKind{}
	}
	writeJSON(w, http.StatusOK, out)
}

func (d *Dashboard) taskReport(w http.ResponseWriter, r *http.Request) {
	o := d.projectTasks(w)
	if o == nil {
		return
	}
	if _, err := ownedTask(r.Context(), o, r.PathValue("id")); err != nil {
		fail(w, err)
		return
	}
	rep, err := o.Report(r.Context(), r.PathValue("id"))
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, rep)
}

// startBody starts an agent, on an issue when IssueID is set.
type startBody struct {
	Tool         string          `json:"tool"`
	Description  string          `json:"description"`
	Instructions string          `json:"instructions"`
	Config       json.RawMessage `json:"config"`
	IssueID      string          `json:"issue_id"`
}

func (d *Dashboard) startTask(w http.ResponseWriter, r *http.Request) {
	o := d.projectTasks(w)
	if o == nil {
		return
	}
	var in startBody
	if err := decode(r, &in); err != nil {
		fail(w, err)
		return
	}
	var t orchestrator.Task
	var err error
	if in.IssueID != "" {
		// Start assembles the prompt from the tracker, as create_task
		// with issue_id does; the page's instructions are appended to it.
		t, err = d.opts.Tasks.Start(r.Context(), orchestrator.StartInput{IssueID: in.IssueID, Agent: in.Tool, Description: in.Description,
			Instructions: in.Instructions, Config: in.Config, Actor: d.opts.Actor})
	} else {
		t, err = o.Create(r.Context(), orchestrator.CreateInput{Agent: in.Tool, Description: in.Description, Instructions: in.Instructions,
			Config: in.Config, Actor: d.opts.Actor})
	}
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, http.StatusCreated, t)
}

func (d *Dashboard) followUp(w http.ResponseWriter, r *http.Request) {
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
	if strings.TrimSpace(in.Instructions) == "" {
		fail(w, fault.New(fault.Invalid, "a follow-up needs instructions").WithHint("write what the agent should do next, or comment on lines of the diff"))
		return
	}
	t, err := d.opts.Tasks.Update(r.Context(), r.PathValue("id"), orchestrator.UpdateInput{Instructions: in.Instructions}) // the issue keeps what was asked
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, t)
}

// stopTask ends the task, keeping its branch with whatever the agent
// wrote (committed onto it), so nothing of the work is lost; its issue is
// open again (app.End).
func (d *Dashboard) stopTask(w http.ResponseWriter, r *http.Request) {
	if d.projectTasks(w) == nil {
		return
	}
	res, err := d.opts.Tasks.End(r.Context(), r.PathValue("id"), orchestrator.EndInput{KeepBranch: true})
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}
