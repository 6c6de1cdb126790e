package mcptracker

import (
	"context"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/mcpx"
	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

var (
	feedbackTypes    = names(tracker.FeedbackTypes)
	feedbackStatuses = names(tracker.FeedbackStatuses)
)

type addFeedbackIn struct {
	IssueID string  `json:"issue_id" jsonschema:"Issue providing the feedback"`
	SpecID  string  `json:"spec_id" jsonschema:"Spec receiving the feedback"`
	Content string  `json:"content" jsonschema:"Feedback content"`
	Type    *string `json:"type,omitempty" jsonschema:"Feedback type"`
	Line    *int    `json:"line,omitempty" jsonschema:"Line number in the spec's content (1-based); exclusive with text"`
	Text    *string `json:"text,omitempty" jsonschema:"Text to search for in the spec: anchors at the first line holding it; exclusive with line"`
	Agent   *string `json:"agent,omitempty" jsonschema:"Agent name (default: the USER environment variable)"`
}

func (s *server) addFeedback() mcpx.Tool {
	return mcpx.NewTool(mcpx.Faults, &mcp.Tool{
		Name:  "add_feedback",
		Title: "Add feedback on a spec",
		Description: "Add feedback from an issue on a spec, anchored at a line (line) or at the first line holding a text (text); exactly one of the two. " +
			"The anchor follows its text when the spec changes. Use it when a spec is unclear, incomplete or wrong.",
		InputSchema: mcpx.Schema[addFeedbackIn](map[string]any{"type": string(tracker.DefaultFeedbackType)}, map[string][]string{"type": feedbackTypes}),
		Annotations: creates,
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in addFeedbackIn) (out tracker.Feedback, err error) {
		agent := deref(in.Agent)
		if agent == "" {
			agent = os.Getenv("USER")
		}
		fi := store.FeedbackInput{IssueID: in.IssueID, SpecID: in.SpecID, Content: in.Content, Type: deref(in.Type),
			Agent: agent, Line: in.Line, Text: in.Text}
		return call(ctx, s, func(r *store.Repo) (tracker.Feedback, error) { return r.AddFeedback(ctx, fi) })
	})
}

type listFeedbackIn struct {
	IssueID *string `json:"issue_id,omitempty" jsonschema:"Only feedback from this issue"`
	SpecID  *string `json:"spec_id,omitempty" jsonschema:"Only feedback on this spec"`
	Type    *string `json:"type,omitempty" jsonschema:"Only this feedback type"`
	Status  *string `json:"status,omitempty" jsonschema:"Only this status"`
	Limit   *int    `json:"limit,omitempty" jsonschema:"Max results"`
	Cursor  *string `json:"cursor,omitempty" jsonschema:"next_cursor of a previous result of the same query: continues the list after it"`
}

func (s *server) listFeedback() mcpx.Tool {
	return mcpx.NewTool(mcpx.Faults, &mcp.Tool{
		Name:  "list_feedback",
		Title: "List feedback",
		Description: "List feedback with filters, oldest first, as compact items (anchor status and line, content cut short) with the total. " +
			"When truncated, pass next_cursor as cursor (same filters) for the next page.",
		InputSchema: mcpx.Schema[listFeedbackIn](map[string]any{"limit": store.DefaultListLimit},
			map[string][]string{"type": feedbackTypes, "status": feedbackStatuses}),
		Annotations: readOnly,
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in listFeedbackIn) (out tracker.FeedbackList, err error) {
		f := store.FeedbackFilter{IssueID: deref(in.IssueID), SpecID: deref(in.SpecID), Type: deref(in.Type), Status: deref(in.Status), Limit: deref(in.Limit),
			Cursor: deref(in.Cursor)}
		return call(ctx, s, func(r *store.Repo) (tracker.FeedbackList, error) { return s.feedbackList(ctx, r, f) })
	})
}

func (s *server) feedbackList(ctx context.Context, r *store.Repo, f store.FeedbackFilter) (tracker.FeedbackList, error) {
	list, err := r.ListFeedback(ctx, f)
	if err != nil {
		return list, err
	}
	fitList(s, &list, &list.Feedback, listPage{list.Total, &list.Truncated, &list.Hint, &list.NextCursor, list.Page}, "issue_id, spec_id, type or status")
	return list, nil
}

type feedbackIDIn struct {
	FeedbackID string `json:"feedback_id" jsonschema:"Feedback ID (e.g. sudocode-fb-a1b2)"`
}

func (s *server) showFeedback() mcpx.Tool {
	return mcpx.NewTool(mcpx.Faults, &mcp.Tool{
		Name:        "show_feedback",
		Title:       "Show feedback",
		Description: "Show feedback in full with its anchor (status valid, relocated or stale) and location: the line it points at in the spec now.",
		Annotations: readOnly,
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in feedbackIDIn) (out tracker.FeedbackDetail, err error) {
		return call(ctx, s, func(r *store.Repo) (tracker.FeedbackDetail, error) { return r.ShowFeedback(ctx, in.FeedbackID) })
	})
}

func (s *server) acknowledgeFeedback() mcpx.Tool {
	return mcpx.NewTool(mcpx.Faults, &mcp.Tool{
		Name:        "acknowledge_feedback",
		Title:       "Acknowledge feedback",
		Description: "Mark feedback as seen (status acknowledged) and return it.",
		Annotations: changes,
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in feedbackIDIn) (out tracker.Feedback, err error) {
		return call(ctx, s, func(r *store.Repo) (tracker.Feedback, error) {
			return r.SetFeedbackStatus(ctx, in.FeedbackID, tracker.FeedbackAcknowledged, nil)
		})
	})
}

type resolveFeedbackIn struct {
	FeedbackID string  `json:"feedback_id" jsonschema:"Feedback ID"`
	Comment    *string `json:"comment,omitempty" jsonschema:"Resolution comment"`
}

func (s *server) resolveFeedback() mcpx.Tool {
	return mcpx.NewTool(mcpx.Faults, &mcp.Tool{
		Name:        "resolve_feedback",
		Title:       "Resolve feedback",
		Description: "Mark feedback resolved (the spec now answers it), with an optional comment, and return it.",
		Annotations: changes,
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in resolveFeedbackIn) (out tracker.Feedback, err error) {
		return call(ctx, s, func(r *store.Repo) (tracker.Feedback, error) {
			return r.SetFeedbackStatus(ctx, in.FeedbackID, tracker.FeedbackResolved, in.Comment)
		})
	})
}

type wontfixFeedbackIn struct {
	FeedbackID string  `json:"feedback_id" jsonschema:"Feedback ID"`
	Reason     *string `json:"reason,omitempty" jsonschema:"Reason for not fixing"`
}

func (s *server) wontfixFeedback() mcpx.Tool {
	return mcpx.NewTool(mcpx.Faults, &mcp.Tool{
		Name:        "wontfix_feedback",
		Title:       "Won't fix feedback",
		Description: "Mark feedback as won't fix, with an optional reason, and return it.",
		Annotations: changes,
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in wontfixFeedbackIn) (out tracker.Feedback, err error) {
		return call(ctx, s, func(r *store.Repo) (tracker.Feedback, error) {
			return r.SetFeedbackStatus(ctx, in.FeedbackID, tracker.FeedbackWontFix, in.Reason)
		})
	})
}

type noArgs struct{}

type staleIn struct {
	Limit  *int    `json:"limit,omitempty" jsonschema:"Max results"`
	Cursor *string `json:"cursor,omitempty" jsonschema:"next_cursor of a previous result of the same query: continues the list after it"`
}

func (s *server) staleFeedback() mcpx.Tool {
	return mcpx.NewTool(mcpx.Faults, &mcp.Tool{
		Name:  "stale_feedback",
		Title: "Stale feedback",
		Description: "List feedback whose anchor was lost when its spec changed (anchor_status stale), oldest first; re-anchor each with relocate_feedback. " +
			"When truncated, pass next_cursor as cursor for the next page.",
		InputSchema: mcpx.Schema[staleIn](map[string]any{"limit": store.DefaultListLimit}, nil),
		Annotations: readOnly,
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in staleIn) (out tracker.FeedbackList, err error) {
		f := store.FeedbackFilter{Stale: true, Limit: deref(in.Limit), Cursor: deref(in.Cursor)}
		return call(ctx, s, func(r *store.Repo) (tracker.FeedbackList, error) { return s.feedbackList(ctx, r, f) })
	})
}

type relocateFeedbackIn struct {
	FeedbackID string `json:"feedback_id" jsonschema:"Feedback ID"`
	Line       *int   `json:"line" jsonschema:"New line number in the spec's content (1-based)"`
}

func (s *server) relocateFeedback() mcpx.Tool {
	return mcpx.NewTool(mcpx.Faults, &mcp.Tool{
		Name:        "relocate_feedback",
		Title:       "Relocate feedback",
		Description: "Re-anchor feedback at a line of its spec by hand (for a stale anchor; read the spec with show_spec first). The original location is kept.",
		Annotations: changes,
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in relocateFeedbackIn) (out tracker.Feedback, err error) {
		return call(ctx, s, func(r *store.Repo) (tracker.Feedback, error) { return r.RelocateFeedback(ctx, in.FeedbackID, *in.Line) })
	})
}
