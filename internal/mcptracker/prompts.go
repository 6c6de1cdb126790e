package mcptracker

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/mcpx"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

func (s *server) addPrompts(srv *mcp.Server) {
	srv.AddPrompt(&mcp.Prompt{
		Name:        "start_next_task",
		Title:       "Start work on the next task",
		Description: "Pick the highest-priority ready issue, claim it and gather what is needed to do it.",
		Arguments: []*mcp.PromptArgument{
			{Name: "assignee", Description: "Your name, recorded when you claim the issue"},
		},
	}, s.startNextTask)
	srv.AddPrompt(&mcp.Prompt{
		Name:        "review_spec",
		Title:       "Review a spec",
		Description: "Read a spec and its open feedback, and leave anchored feedback where it is unclear, incomplete or wrong.",
		Arguments: []*mcp.PromptArgument{
			{Name: "spec_id", Description: "The spec to review", Required: true},
		},
	}, s.reviewSpec)
}

// snapshot runs a read for a prompt and returns its JSON; a failure is the
// text of the tool error it would have been, as an invalid-params error.
func (s *server) snapshot(ctx context.Context, fn func(*store.Repo) (any, error)) (string, error) {
	v, err := call(ctx, s, fn)
	var res *mcp.CallToolResult
	if err == nil {
		res, err = mcpx.Result(v)
	}
	if err != nil {
		return "", mcpx.InvalidParams(mcpx.FaultResult(err).Content[0].(*mcp.TextContent).Text)
	}
	return res.Content[0].(*mcp.TextContent).Text, nil
}

func (s *server) startNextTask(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	who := req.Params.Arguments["assignee"]
	if who == "" {
		who = "<your name>"
	}
	ready, err := s.snapshot(ctx, func(r *store.Repo) (any, error) { return r.Ready(ctx, store.ReadyOptions{Issues: true, Limit: 5}) })
	if err != nil {
		return nil, err
	}
	text := fmt.Sprintf(`Start work on the next task in this project's sudocode tracker.

The ready issues right now (highest priority first):
%s

1. Take the first issue above (call the ready tool again if this list is empty or stale).
2. Claim it: update_issue with issue_id, status "in_progress" and assignee %q.
3. Read it with show_issue; for every spec it implements or references, read the spec with show_spec.
4. If a spec is unclear, add_feedback anchored at the exact line or text, then carry on with the most reasonable reading.
5. Do the work. Create issues for work you discover and link them with type "discovered-from".
6. When done, close_issue with a reason that says what was done, then call ready again.`, ready, who)
	return &mcp.GetPromptResult{Description: "Start work on the next ready task", Messages: []*mcp.PromptMessage{
		{Role: "user", Content: &mcp.TextContent{Text: text}},
	}}, nil
}

func (s *server) reviewSpec(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	id := strings.TrimSpace(req.Params.Arguments["spec_id"])
	if id == "" {
		return nil, mcpx.InvalidParams("missing required argument 'spec_id': the spec to review")
	}
	spec, err := s.snapshot(ctx, func(r *store.Repo) (any, error) { return r.ShowSpec(ctx, id) })
	if err != nil {
		return nil, err
	}
	text := fmt.Sprintf(`Review the spec %s of this project's sudocode tracker.

The spec as it is now (content is its markdown; feedback is what it already received):
%s

1. Read the content whole. Note every place that is ambiguous, leaves a requirement out, conflicts with a technical constraint, or could be better.
2. Skip points the existing feedback already raises.
3. For each new point, add_feedback with an issue_id of the issue you work for, spec_id %q, the type (ambiguity, missing_requirement, technical_constraint, suggestion or question), a precise content, and an anchor: text with words from the exact line, or its line number (counting from 1 in content).
4. End with a short summary of what you raised.`, id, spec, id)
	return &mcp.GetPromptResult{Description: "Review spec " + id, Messages: []*mcp.PromptMessage{
		{Role: "user", Content: &mcp.TextContent{Text: text}},
	}}, nil
}
