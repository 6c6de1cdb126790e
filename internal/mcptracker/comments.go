package mcptracker

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/mcpx"
	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

type addCommentIn struct {
	IssueID string `json:"issue_id" jsonschema:"Issue ID (e.g. sudocode-a1b2)"`
	Body    string `json:"body" jsonschema:"The comment, markdown, at most 64 KiB"`
}

// addComment comments on an issue. Each call adds a comment (a retry adds
// it again), so it is not idempotent.
func (s *server) addComment() mcpx.Tool {
	return mcpx.NewTool(mcpx.Faults, &mcp.Tool{
		Name:  "add_comment",
		Title: "Comment on an issue",
		Description: "Add a markdown comment to an issue, signed as you, and return it ({id, issue_id, author, body, created_at, updated_at}). " +
			"Use it for progress notes, findings and hand-offs that people and later agents should read; " +
			"change fields with update_issue instead. show_issue returns the comments and the issue's history " +
			"(status, assignee, links, agent tasks), oldest first.",
		Annotations: creates,
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in addCommentIn) (out tracker.Comment, err error) {
		return call(ctx, s, func(r *store.Repo) (tracker.Comment, error) { return r.AddComment(ctx, in.IssueID, in.Body) })
	})
}
