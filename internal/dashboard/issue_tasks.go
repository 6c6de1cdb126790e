package dashboard

import (
	"context"
	"time"

	"github.com/sudocode/sudocode/internal/orchestrator"
	"github.com/sudocode/sudocode/internal/orchestrator/agent"
	"github.com/sudocode/sudocode/internal/tracker"
)

// IssueView is /api/issues/{id}: the issue, and the tasks started on it.
type IssueView struct {
	tracker.IssueDetail
	// Tasks are oldest first; empty when there are none or tasks are
	// unavailable.
	Tasks []IssueTask `json:"tasks"`
}

// IssueTask is a task started on an issue as the issue's page lists it:
// what a reviewer needs to tell its tasks apart.
type IssueTask struct {
	ID    string `json:"id"`
	Agent string `json:"agent"` // as the CLI's --agent names it
	State string `json:"state"` // orchestrator.Task.State
	// StateText is State in the words a person reads (orchestrator.StateText).
	StateText string    `json:"state_text"`
	Branch    string    `json:"branch"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"` // when it last changed
}

// issueView adds to is the tasks started on it.
func (d *Dashboard) issueView(ctx context.Context, is tracker.IssueDetail) (IssueView, error) {
	v := IssueView{IssueDetail: is, Tasks: []IssueTask{}}
	if d.opts.Tasks == nil {
		return v, nil
	}
	ts, err := d.opts.Tasks.List(ctx)
	if err != nil {
		return v, err
	}
	if v.Usage, err = d.issueUsage(ctx, is.ID); err != nil {
		return v, err
	}
	for _, t := range ts {
		if t.IssueID != is.ID {
			continue
		}
		st := t.State()
		v.Tasks = append(v.Tasks, IssueTask{ID: t.ID, Agent: agent.Name(t.Agent), State: st, StateText: orchestrator.StateText(st),
			Branch: t.Branch, CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt})
	}
	return v, nil
}
