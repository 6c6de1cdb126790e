package mcptracker

import (
	"cmp"
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/mcpx"
	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

var (
	issueStatuses = names(tracker.IssueStatuses)
	issueTypes    = names(tracker.IssueTypes)
)

func names[T ~string](vs []T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}

type readyIn struct {
	Limit      *int    `json:"limit,omitempty" jsonschema:"Max items to return per list"`
	Priority   *int    `json:"priority,omitempty" jsonschema:"Only this priority, 0 (highest) to 4"`
	Assignee   *string `json:"assignee,omitempty" jsonschema:"Only issues assigned to this person"`
	ShowSpecs  *bool   `json:"show_specs,omitempty" jsonschema:"Include ready specs (draft or review, nothing blocking)"`
	ShowIssues *bool   `json:"show_issues,omitempty" jsonschema:"Include ready issues"`
	Cursor     *string `json:"cursor,omitempty" jsonschema:"next_cursor of a previous result of the same query: continues the list after it"`
}

func (s *server) ready() mcpx.Tool {
	return mcpx.NewTool(mcpx.Faults, &mcp.Tool{
		Name:  "ready",
		Title: "Ready work",
		Description: "Find issues (and optionally specs) ready to work on: open, with no unfinished blocker, direct or inherited " +
			"from a parent. Highest priority (0) first, then oldest. Returns compact items; read one with show_issue. " +
			"next_cursor, when not null, continues the lists (pass it as cursor with the same filters).",
		InputSchema: mcpx.Schema[readyIn](map[string]any{"limit": store.DefaultReadyLimit, "show_specs": false, "show_issues": true}, nil),
		Annotations: readOnly,
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in readyIn) (out tracker.ReadyResult, err error) {
		o := store.ReadyOptions{Limit: deref(in.Limit), Priority: in.Priority, Assignee: deref(in.Assignee),
			Specs: deref(in.ShowSpecs), Issues: in.ShowIssues == nil || *in.ShowIssues, Cursor: deref(in.Cursor)}
		return call(ctx, s, func(r *store.Repo) (tracker.ReadyResult, error) {
			return fitByLimit(s, cmp.Or(o.Limit, store.DefaultReadyLimit), func(limit int) (tracker.ReadyResult, error) { o.Limit = limit; return r.Ready(ctx, o) })
		})
	})
}

type listIssuesIn struct {
	Status   *string `json:"status,omitempty" jsonschema:"Only this status"`
	Type     *string `json:"type,omitempty" jsonschema:"Only this type"`
	Priority *int    `json:"priority,omitempty" jsonschema:"Only this priority, 0 (highest) to 4"`
	Assignee *string `json:"assignee,omitempty" jsonschema:"Only this assignee"`
	Limit    *int    `json:"limit,omitempty" jsonschema:"Max results"`
	Cursor   *string `json:"cursor,omitempty" jsonschema:"next_cursor of a previous result of the same query: continues the list after it"`
}

func (s *server) listIssues() mcpx.Tool {
	return mcpx.NewTool(mcpx.Faults, &mcp.Tool{
		Name:  "list_issues",
		Title: "List issues",
		Description: "List issues with optional filters, highest priority then oldest first, as compact items " +
			"(id, title, status, priority, type, short description) with the total. When truncated, narrow with filters " +
			"or pass next_cursor as cursor (same filters) for the next page.",
		InputSchema: mcpx.Schema[listIssuesIn](map[string]any{"limit": store.DefaultListLimit},
			map[string][]string{"status": issueStatuses, "type": issueTypes}),
		Annotations: readOnly,
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in listIssuesIn) (out tracker.IssueList, err error) {
		f := store.IssueFilter{Status: deref(in.Status), Type: deref(in.Type), Priority: in.Priority, Assignee: deref(in.Assignee), Limit: s.readLimit(deref(in.Limit)),
			Cursor: deref(in.Cursor)}
		return call(ctx, s, func(r *store.Repo) (tracker.IssueList, error) {
			list, err := r.ListIssues(ctx, f)
			if err != nil {
				return out, err
			}
			fitList(s, &list, &list.Issues, listPage{list.Total, &list.Truncated, &list.Hint, &list.NextCursor, list.Page}, "status, type, priority or assignee")
			return list, nil
		})
	})
}

// How much of an issue's activity show_issue gives: an issue discussed
// for months would otherwise fill the agent's context with it.
const (
	showComments = 20
	showHistory  = 50
)

// latest is the last n of list and how many came before them.
func latest[T any](list []T, n int) ([]T, int) {
	if len(list) <= n {
		return list, 0
	}
	return list[len(list)-n:], len(list) - n
}

type issueIDIn struct {
	IssueID string `json:"issue_id" jsonschema:"Issue ID (e.g. sudocode-a1b2)"`
}

func (s *server) showIssue() mcpx.Tool {
	return mcpx.NewTool(mcpx.Faults, &mcp.Tool{
		Name:  "show_issue",
		Title: "Show an issue",
		Description: "Show an issue in full: fields, tags, relationships both ways, what it waits for (blocked_by, with the ancestor a blocker is inherited through), the feedback it gave on specs, the agent tasks started on it (tasks, when there are any) and what they cost, every attempt added up (usage), " +
			"its latest 20 comments, and its latest 50 history entries (changes of status and assignee, links added and removed, agent tasks), both oldest first; earlier_comments and earlier_history count what was left out.",
		Annotations: readOnly,
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in issueIDIn) (out tracker.IssueDetail, err error) {
		return call(ctx, s, func(r *store.Repo) (tracker.IssueDetail, error) {
			d, err := r.ShowIssue(ctx, in.IssueID)
			d.Comments, d.EarlierComments = latest(d.Comments, showComments)
			d.History, d.EarlierHistory = latest(d.History, showHistory)
			if err == nil && s.opts.Tasks != nil {
				d.Tasks, err = s.opts.Tasks(ctx, r.Dir, d.ID)
			}
			if err == nil && s.opts.IssueUsage != nil {
				d.Usage, err = s.opts.IssueUsage(ctx, r.Dir, d.ID)
			}
			return d, err
		})
	})
}

type createIssueIn struct {
	Title       string   `json:"title" jsonschema:"Issue title"`
	Description string   `json:"description,omitempty" jsonschema:"Description (markdown)"`
	Type        *string  `json:"type,omitempty" jsonschema:"Issue type"`
	Priority    *int     `json:"priority,omitempty" jsonschema:"Priority 0 (highest) to 4"`
	Assignee    *string  `json:"assignee,omitempty" jsonschema:"Assignee username"`
	Parent      *string  `json:"parent,omitempty" jsonschema:"Parent issue ID; makes a parent-child link, so the parent's blockers also block this issue"`
	Tags        []string `json:"tags,omitempty" jsonschema:"Tags"`
	Estimate    *int     `json:"estimate,omitempty" jsonschema:"Estimated minutes"`
}

func (in createIssueIn) input() store.IssueInput {
	return store.IssueInput{Title: in.Title, Description: in.Description, Type: deref(in.Type), Priority: in.Priority,
		Assignee: in.Assignee, Parent: in.Parent, Tags: in.Tags, Estimate: in.Estimate}
}

var createIssueDefaults = map[string]any{"description": "", "type": string(tracker.DefaultIssueType), "priority": tracker.DefaultPriority}

func (s *server) createIssue() mcpx.Tool {
	return mcpx.NewTool(mcpx.Faults, &mcp.Tool{
		Name:        "create_issue",
		Title:       "Create an issue",
		Description: "Create a new issue (status open) and return it. Link it to specs or other issues with link.",
		InputSchema: mcpx.Schema[createIssueIn](createIssueDefaults, map[string][]string{"type": issueTypes}),
		Annotations: creates,
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in createIssueIn) (out tracker.Issue, err error) {
		return call(ctx, s, func(r *store.Repo) (tracker.Issue, error) { return r.CreateIssue(ctx, in.input()) })
	})
}

type updateIssueIn struct {
	IssueID     string  `json:"issue_id" jsonschema:"Issue ID"`
	Status      *string `json:"status,omitempty" jsonschema:"New status; closed sets closed_at (prefer close_issue, which records a reason)"`
	Priority    *int    `json:"priority,omitempty" jsonschema:"New priority, 0 (highest) to 4"`
	Assignee    *string `json:"assignee,omitempty" jsonschema:"New assignee (empty clears it)"`
	Type        *string `json:"type,omitempty" jsonschema:"New type"`
	Title       *string `json:"title,omitempty" jsonschema:"New title"`
	Description *string `json:"description,omitempty" jsonschema:"New description"`
}

func (in updateIssueIn) patch() store.IssuePatch {
	return store.IssuePatch{Title: in.Title, Description: in.Description, Status: in.Status, Type: in.Type, Assignee: in.Assignee, Priority: in.Priority}
}

func (s *server) updateIssue() mcpx.Tool {
	return mcpx.NewTool(mcpx.Faults, &mcp.Tool{
		Name:  "update_issue",
		Title: "Update an issue",
		Description: "Change the given fields of an issue and return it; fields left out stay. " +
			"Claim work with status=in_progress and your assignee name.",
		InputSchema: mcpx.Schema[updateIssueIn](nil, map[string][]string{"status": issueStatuses, "type": issueTypes}),
		Annotations: changes,
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in updateIssueIn) (out tracker.Issue, err error) {
		return call(ctx, s, func(r *store.Repo) (tracker.Issue, error) { return r.UpdateIssue(ctx, in.IssueID, in.patch()) })
	})
}

type closeIssueIn struct {
	IssueIDs []string `json:"issue_ids" jsonschema:"Issue IDs to close"`
	Reason   *string  `json:"reason,omitempty" jsonschema:"Reason for closing"`
}

func (s *server) closeIssue() mcpx.Tool {
	return mcpx.NewTool(mcpx.Faults, &mcp.Tool{
		Name:  "close_issue",
		Title: "Close issues",
		Description: "Close one or more issues with a reason. Returns one result per id ({id, success, error}); " +
			"an unknown id fails alone. Closing an issue unblocks what waits on it.",
		InputSchema: mcpx.Schema[closeIssueIn](map[string]any{"reason": tracker.DefaultCloseReason}, nil),
		Annotations: changes,
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in closeIssueIn) (out []tracker.CloseResult, err error) {
		return call(ctx, s, func(r *store.Repo) ([]tracker.CloseResult, error) {
			return r.CloseIssues(ctx, in.IssueIDs, deref(in.Reason))
		})
	})
}

type blockedIn struct {
	ShowSpecs  *bool   `json:"show_specs,omitempty" jsonschema:"Include blocked specs"`
	ShowIssues *bool   `json:"show_issues,omitempty" jsonschema:"Include blocked issues"`
	Limit      *int    `json:"limit,omitempty" jsonschema:"Max items to return per list"`
	Cursor     *string `json:"cursor,omitempty" jsonschema:"next_cursor of a previous result of the same query: continues the list after it"`
}

func (s *server) blockedIssues() mcpx.Tool {
	return mcpx.NewTool(mcpx.Faults, &mcp.Tool{
		Name:  "blocked_issues",
		Title: "Blocked work",
		Description: "List unfinished issues (and optionally specs) that wait for unfinished work, each with blocked_by: " +
			"the unfinished items it waits for ({id, title, status, type, via}; via names the parent a blocker is inherited through). " +
			"next_cursor, when not null, continues the lists (pass it as cursor with the same filters).",
		InputSchema: mcpx.Schema[blockedIn](map[string]any{"show_specs": false, "show_issues": true, "limit": store.DefaultListLimit}, nil),
		Annotations: readOnly,
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in blockedIn) (out tracker.BlockedResult, err error) {
		o := store.BlockedOptions{Specs: deref(in.ShowSpecs), Issues: in.ShowIssues == nil || *in.ShowIssues, Limit: deref(in.Limit), Cursor: deref(in.Cursor)}
		return call(ctx, s, func(r *store.Repo) (tracker.BlockedResult, error) {
			return fitByLimit(s, cmp.Or(o.Limit, store.DefaultListLimit), func(limit int) (tracker.BlockedResult, error) { o.Limit = limit; return r.Blocked(ctx, o) })
		})
	})
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
