package app

import (
	"context"
	"strings"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/orchestrator"
	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

// taskIssues is the project's tracker as the tasks reach it
// (orchestrator.Issues): the issue a task starts from, with its prompt
// assembled from the tracker and the ruleset library, and the changes a
// task's transitions make to its issue, recorded as actor.
type taskIssues struct {
	tracker *Tracker
	rules   Rules // nil: prompts get no rulesets
	actor   string
}

// TaskIssues is the tracker tr as the tasks reach it, with the ruleset
// library rules (nil: prompts get no rulesets) and the issues' changes
// recorded as actor: what an orchestrator follows (FollowIssues).
func TaskIssues(tr *Tracker, rules Rules, actor string) orchestrator.Issues {
	return taskIssues{tracker: tr, rules: rules, actor: actor}
}

// do runs fn on the tracker, with changes recorded as the tasks' actor.
func (ti taskIssues) do(ctx context.Context, fn func(*store.Repo) error) error {
	return ti.tracker.Do(ctx, ti.actor, fn)
}

func (ti taskIssues) Brief(ctx context.Context, id, agentKind string, always []string) (orchestrator.IssueBrief, error) {
	var b orchestrator.IssueBrief
	err := ti.do(ctx, func(r *store.Repo) error {
		is, err := r.ShowIssue(ctx, id)
		if err != nil {
			return err
		}
		if is.Status == tracker.IssueClosed {
			return fault.New(fault.Conflict, "issue %s is closed", is.ID).
				WithHint("reopen it (update_issue status open) to work on it again")
		}
		b.ID, b.Title = is.ID, is.Title
		b.Prompt, err = Prompt(ctx, r, ti.rules, always, RulesAgent(agentKind), is.ID)
		return err
	})
	return b, err
}

func (ti taskIssues) Title(ctx context.Context, id string) (string, error) {
	return Read(ctx, ti.tracker, ti.actor, func(r *store.Repo) (string, error) {
		is, err := r.ShowIssue(ctx, id)
		return is.Title, err
	})
}

func (ti taskIssues) Take(ctx context.Context, id, assignee string) error {
	status := string(tracker.IssueInProgress)
	return ti.do(ctx, func(r *store.Repo) error {
		_, err := r.UpdateIssue(ctx, id, store.IssuePatch{Status: &status, Assignee: &assignee})
		return err
	})
}

func (ti taskIssues) HandBack(ctx context.Context, id string, held func(orchestrator.IssueState) bool, note string) error {
	return ti.do(ctx, func(r *store.Repo) error {
		is, err := r.ShowIssue(ctx, id)
		if fault.CodeOf(err) == fault.NotFound {
			return nil // deleted meanwhile: nothing holds the note
		}
		if err != nil || !held(orchestrator.IssueState{Status: is.Status, Assignee: is.Assignee}) {
			return err
		}
		desc := note
		if prev := strings.TrimRight(is.Description, "\n"); prev != "" {
			desc = prev + "\n\n---\n" + note
		}
		status, none := string(tracker.IssueOpen), ""
		_, err = r.UpdateIssue(ctx, is.ID, store.IssuePatch{Status: &status, Assignee: &none, Description: &desc})
		return err
	})
}

func (ti taskIssues) Review(ctx context.Context, id, assignee, note string) error {
	return ti.do(ctx, func(r *store.Repo) error {
		is, err := r.ShowIssue(ctx, id)
		if fault.CodeOf(err) == fault.NotFound {
			return nil
		}
		if err != nil {
			return err
		}
		desc := strings.TrimRight(is.Description, "\n") + "\n\n---\n" + note
		patch := store.IssuePatch{Description: &desc}
		if is.Status != tracker.IssueClosed {
			status := string(tracker.IssueInProgress)
			patch.Status, patch.Assignee = &status, &assignee
		}
		_, err = r.UpdateIssue(ctx, is.ID, patch)
		return err
	})
}

func (ti taskIssues) Close(ctx context.Context, id, reason string) error {
	return ti.do(ctx, func(r *store.Repo) error {
		is, err := r.ShowIssue(ctx, id)
		if fault.CodeOf(err) == fault.NotFound || err == nil && is.Status == tracker.IssueClosed {
			return nil // deleted or closed meanwhile: nothing to close
		}
		if err == nil {
			_, err = r.CloseIssues(ctx, []string{id}, reason)
		}
		return err
	})
}

func (ti taskIssues) Ready(ctx context.Context, f orchestrator.ReadyFilter) ([]string, error) {
	rr, err := Read(ctx, ti.tracker, ti.actor, func(r *store.Repo) (tracker.ReadyResult, error) {
		return r.Ready(ctx, store.ReadyOptions{Limit: 100, Priority: f.Priority, Assignee: f.Assignee, Issues: true})
	})
	if err != nil || rr.Issues == nil {
		return nil, err
	}
	ids := make([]string, len(*rr.Issues))
	for i, c := range *rr.Issues {
		ids[i] = c.ID
	}
	return ids, nil
}

func (ti taskIssues) TaskEvent(ctx context.Context, id, taskID, what string) error {
	return ti.do(ctx, func(r *store.Repo) error {
		err := r.RecordTask(ctx, id, taskID, what)
		if fault.CodeOf(err) == fault.NotFound {
			return nil // deleted meanwhile: no history to keep
		}
		return err
	})
}
